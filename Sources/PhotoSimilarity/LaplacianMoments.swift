import ImageKernels
import PhotoSimilarityCL

/// Per interior row of each uint8 plane, the sum and the sum of squares of its 4-neighbour Laplacian (a
/// float image 2 wide and `height − 2` high per plane), each summed exactly and rounded once: what
/// ``sharpness(ofGray:context:)`` reduces to the Laplacian's variance, the usual measure of focus (a blurred
/// or upscaled copy scores lower).
public struct LaplacianMoments: Filter {
    public var name: String { "Laplacian moments" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        var input = try singleInput(inputs, of: .uint8)
        guard input.width >= 3, input.height >= 3 else {
            throw .invalidInput(filter: name, reason: "needs planes of at least 3×3, got \(input)")
        }
        input.elementType = .float32
        return input.with(width: 2, height: input.height - 2)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output), width: Int32(input.width),
                height: Int32(input.height), planes: Int32(input.planeCount)),
            over: [input.height - 2, input.planeCount])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<UInt8>
        var dst: KernelMutableBuffer<Float>
        var width: Int32
        var height: Int32
        var planes: Int32
    }

    static let kernel = Kernel<Arguments>(
        "laplacian_moments", in: KernelSource(name: "LaplacianMoments", bytes: PhotoSimilarityCL.laplacianMoments),
        schedules: .uniform([16, 1])
    ) { arguments, _ in
        let width = Int(arguments.width), height = Int(arguments.height)
        CPUParallel.forEachRange(Int(arguments.planes) * (height - 2)) { rows in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for item in rows {
                let plane = item / (height - 2), row = item % (height - 2)
                let (sum, squares) = moments(ofRow: src + (plane * height + row + 1) * width, width: width)
                dst[item * 2] = Float(sum)
                dst[item * 2 + 1] = Float(squares)
            }
        }
    }

    /// Σ L and Σ L² over the interior pixels of the row at `p` (`width` pixels, rows above and below it),
    /// exactly: sixteen pixels at a time in 32-bit lanes, whose sums of squares are moved into 64 bits every
    /// ``lanesFlush`` vectors, before they could overflow.
    @inline(__always)
    private static func moments(ofRow p: UnsafePointer<UInt8>, width: Int) -> (Int64, Int64) {
        @inline(__always) func pixels(_ at: UnsafePointer<UInt8>) -> SIMD16<Int32> {
            SIMD16<Int32>(truncatingIfNeeded: UnsafeRawPointer(at).loadUnaligned(as: SIMD16<UInt8>.self))
        }
        var sum: Int64 = 0, squares: Int64 = 0, x = 1
        while x + 16 <= width - 1 {
            var sums = SIMD16<Int32>(), laneSquares = SIMD16<Int32>(), vectors = 0
            while x + 16 <= width - 1, vectors < lanesFlush {
                let l =
                    pixels(p + x - width) &+ pixels(p + x + width) &+ pixels(p + x - 1) &+ pixels(p + x + 1)
                    &- 4 &* pixels(p + x)
                sums &+= l
                laneSquares &+= l &* l
                x += 16
                vectors += 1
            }
            sum += Int64(sums.wrappedSum())
            for lane in 0..<16 { squares += Int64(laneSquares[lane]) }
        }
        for x in x..<width - 1 {
            let l = Int(p[x - width]) + Int(p[x + width]) + Int(p[x - 1]) + Int(p[x + 1]) - 4 * Int(p[x])
            sum += Int64(l)
            squares += Int64(l * l)
        }
        return (sum, squares)
    }

    /// Vectors of sixteen a row's 32-bit lanes add before their sums of squares (each at most 1020²) move into
    /// 64 bits: 2,000 of them stay below 2³¹.
    private static let lanesFlush = 2000

    /// The variance of the Laplacian of each uint8 grey plane, at the size it is given (compare photos
    /// at one size: downscaling sharpens), all in one render on `context`; 0 for a plane under 3×3.
    public static func sharpness(ofGray planes: [PixelBuffer], context: RenderContext) throws(PhotoError) -> [Double] {
        for plane in planes where plane.descriptor.elementType != .uint8 || plane.descriptor.channels != 1 {
            throw .invalidInput("sharpness takes uint8 grey planes, got \(plane.descriptor)")
        }
        // A plane under 3×3 has no pixel with all its neighbours: nothing to measure, and 0 rather than a
        // photo that fails (a 100×1 strip is a photo too).
        let measured = planes.filter { $0.descriptor.width >= 3 && $0.descriptor.height >= 3 }
        var moments: [PixelBuffer]
        do {
            moments =
                measured.isEmpty ? [] : try context.render(measured.map { Image($0).applying(LaplacianMoments()) })
        } catch {
            throw .render(error)
        }
        moments.reverse()
        return planes.map { plane in
            guard plane.descriptor.width >= 3 && plane.descriptor.height >= 3, let moments = moments.popLast() else {
                return 0
            }
            let values = moments.floatValues
            let pixels = Double((plane.descriptor.width - 2) * (plane.descriptor.height - 2))
            var sum = 0.0, squares = 0.0
            for row in stride(from: 0, to: values.count, by: 2) {
                sum += Double(values[row])
                squares += Double(values[row + 1])
            }
            let mean = sum / pixels
            return max(0, squares / pixels - mean * mean)
        }
    }
}
