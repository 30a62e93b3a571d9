import Foundation
import ImageKernelsCL

/// Local binary pattern codes (Ojala et al., 2002) of a `uint8` or float image, as `uint8` codes.
///
/// The output is smaller than the input by the radius on every side (pixels without a full
/// neighbourhood have no code), as in OpenCV's LBPH. With `uniform`, codes are mapped to the
/// P(P−1)+3 uniform-pattern labels (59 for P = 8): uniform codes in increasing order, then one
/// label for all others.
public struct LocalBinaryPattern: Filter {
    /// Which neighbourhood the codes compare.
    public enum Pattern: Sendable, Equatable {
        /// 3×3: bit 7 top-left, 6 top, 5 top-right, 4 right, 3 bottom-right, 2 bottom, 1 bottom-left,
        /// 0 left; a neighbour ≥ the centre sets its bit.
        case basic
        /// P neighbours on a circle of radius R, sampled bilinearly as OpenCV's LBPH does (P ≤ 8).
        case circular(neighbours: Int, radius: Int)
    }

    public let pattern: Pattern
    public let uniform: Bool
    public var name: String {
        switch pattern {
        case .basic: uniform ? "LBP uniform" : "LBP"
        case .circular(let p, let r): "LBP(\(p),\(r))\(uniform ? " uniform" : "")"
        }
    }

    public init(_ pattern: Pattern = .basic, uniform: Bool = false) {
        self.pattern = pattern
        self.uniform = uniform
    }

    var neighbours: Int {
        if case .circular(let neighbours, _) = pattern { return neighbours }
        return 8
    }

    var radius: Int {
        if case .circular(_, let radius) = pattern { return radius }
        return 1
    }

    /// How many distinct labels the output holds: 2^P, or P(P−1)+3 when uniform.
    public var labelCount: Int {
        uniform ? neighbours * (neighbours - 1) + 3 : 1 << neighbours
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard (1...8).contains(neighbours), (1...32).contains(radius) else {
            throw .invalidInput(filter: name, reason: "needs 1...8 neighbours and a radius in 1...32")
        }
        let input = try singleInput(inputs, oneOf: [.uint8, .float32])
        guard input.width > 2 * radius, input.height > 2 * radius else {
            throw .invalidInput(
                filter: name, reason: "input \(input.width)×\(input.height) is too small for radius \(radius)")
        }
        return input.with(width: input.width - 2 * radius, height: input.height - 2 * radius).with(elementType: .uint8)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        let mapping = Self.mapping(neighbours: neighbours, uniform: uniform)
        let size = [output.width, output.height, output.planeCount]
        let (inWidth, inHeight) = (Int32(input.width), Int32(input.height))
        let (outWidth, outHeight) = (Int32(output.width), Int32(output.height))
        switch pattern {
        case .basic:
            func launch<T: PixelElement>(_ kernel: Kernel<BasicArguments<T>>) throws(RenderError) {
                try encoder.launch(
                    kernel,
                    BasicArguments(
                        src: .init(encoder.input), dst: .init(encoder.output), mapping: mapping,
                        inWidth: inWidth, inHeight: inHeight, outWidth: outWidth,
                        outHeight: outHeight), over: size)
            }
            try byPixelType(
                input.elementType, uint8: { () throws(RenderError) in try launch(Self.basicUInt8) },
                float32: { () throws(RenderError) in try launch(Self.basicFloat) })
        case .circular:
            let samples = Self.circularSamples(neighbours: neighbours, radius: radius)
            func launch<T: PixelElement>(_ kernel: Kernel<CircularArguments<T>>) throws(RenderError) {
                try encoder.launch(
                    kernel,
                    CircularArguments(
                        src: .init(encoder.input), dst: .init(encoder.output), mapping: mapping,
                        offsets: samples.offsets, weights: samples.weights,
                        neighbours: Int32(neighbours), radius: Int32(radius),
                        inWidth: inWidth, inHeight: inHeight, outWidth: outWidth,
                        outHeight: outHeight), over: size)
            }
            try byPixelType(
                input.elementType, uint8: { () throws(RenderError) in try launch(Self.circularUInt8) },
                float32: { () throws(RenderError) in try launch(Self.circularFloat) })
        }
    }

    /// The 256-entry code-to-label table: identity, or uniform labels for P-bit codes.
    public static func mapping(neighbours: Int, uniform: Bool) -> [UInt8] {
        guard uniform else { return (0...255).map { UInt8($0) } }
        let codes = 1 << neighbours, mask = codes - 1
        let nonUniform = UInt8(neighbours * (neighbours - 1) + 2)
        var table = [UInt8](repeating: nonUniform, count: 256)
        var next: UInt8 = 0
        for code in 0..<codes {
            let rotated = ((code << 1) | (code >> (neighbours - 1))) & mask
            if (code ^ rotated).nonzeroBitCount <= 2 {
                table[code] = next
                next += 1
            }
        }
        return table
    }

    /// OpenCV's sampling of circular neighbours: per neighbour the offsets (fy, fx, cy, cx) of its four
    /// pixels and their bilinear weights, computed in single precision as OpenCV does.
    public static func circularSamples(neighbours: Int, radius: Int) -> (offsets: [Int32], weights: [Float]) {
        var offsets: [Int32] = [], weights: [Float] = []
        for n in 0..<neighbours {
            let angle = 2.0 * Double.pi * Double(n) / Double(Float(neighbours))
            let x = Float(Double(radius) * cos(angle)), y = Float(Double(-radius) * sin(angle))
            let fx = x.rounded(.down), fy = y.rounded(.down), cx = x.rounded(.up), cy = y.rounded(.up)
            let ty = y - fy, tx = x - fx
            offsets += [Int32(fy), Int32(fx), Int32(cy), Int32(cx)]
            weights += [(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty]
        }
        return (offsets, weights)
    }

    struct BasicArguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<UInt8>
        var mapping: [UInt8]
        var inWidth: Int32
        var inHeight: Int32
        var outWidth: Int32
        var outHeight: Int32
    }

    struct CircularArguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<UInt8>
        var mapping: [UInt8]
        var offsets: [Int32]
        var weights: [Float]
        var neighbours: Int32
        var radius: Int32
        var inWidth: Int32
        var inHeight: Int32
        var outWidth: Int32
        var outHeight: Int32
    }

    static let source = KernelSource(name: "LocalBinaryPattern", bytes: ImageKernelsCL.localBinaryPattern)
    static let basicUInt8 = basic(UInt8.self), basicFloat = basic(Float.self)
    static let circularUInt8 = circular(UInt8.self), circularFloat = circular(Float.self)

    private static func basic<T: PixelElement>(_ type: T.Type) -> Kernel<BasicArguments<T>> {
        Kernel("lbp_basic", in: source, options: T.pixelOptions, schedules: .perPixel) { arguments, grid in
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight)
            let outWidth = Int(arguments.outWidth), outHeight = Int(arguments.outHeight)
            CPUParallel.forEachRange(grid[2] * outHeight) { rows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                arguments.mapping.withUnsafeBufferPointer { mapping in
                    for row in rows {
                        let plane = row / outHeight, y = row % outHeight
                        let above = src + (plane * inHeight + y) * inWidth, centre = above + inWidth,
                            below = centre + inWidth
                        let out = dst + row * outWidth
                        for x in 0..<outWidth {
                            let v = centre[x + 1].floatValue
                            var code = 0
                            if above[x].floatValue >= v { code |= 128 }
                            if above[x + 1].floatValue >= v { code |= 64 }
                            if above[x + 2].floatValue >= v { code |= 32 }
                            if centre[x + 2].floatValue >= v { code |= 16 }
                            if below[x + 2].floatValue >= v { code |= 8 }
                            if below[x + 1].floatValue >= v { code |= 4 }
                            if below[x].floatValue >= v { code |= 2 }
                            if centre[x].floatValue >= v { code |= 1 }
                            out[x] = mapping[code]
                        }
                    }
                }
            }
        }
    }

    /// The CPU twin reads, for each row of codes, the 2R + 1 rows around it as floats, and makes eight codes
    /// at a time: each neighbour's four pixels for eight centres are four vector loads, summed in the
    /// kernel's order.
    private static func circular<T: PixelElement>(_ type: T.Type) -> Kernel<CircularArguments<T>> {
        Kernel("lbp_circular", in: source, options: T.pixelOptions, schedules: .perPixel) { arguments, grid in
            let neighbours = Int(arguments.neighbours), radius = Int(arguments.radius)
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight)
            let outWidth = Int(arguments.outWidth), outHeight = Int(arguments.outHeight)
            let window = (2 * radius + 1) * inWidth
            CPUParallel.forEachRange(grid[2] * outHeight) { rows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                // Eight floats past the window: the last eight codes of a row may read past its end, into
                // lanes that are not stored.
                let lines = UnsafeMutablePointer<Float>.allocate(capacity: window + 8)
                lines.initialize(repeating: 0, count: window + 8)
                defer { lines.deallocate() }
                arguments.mapping.withUnsafeBufferPointer { mapping in
                    arguments.offsets.withUnsafeBufferPointer { offsets in
                        arguments.weights.withUnsafeBufferPointer { weights in
                            for row in rows {
                                let plane = row / outHeight, y = row % outHeight
                                let first = src + (plane * inHeight + y) * inWidth
                                for i in 0..<window { lines[i] = first[i].floatValue }
                                let centre = UnsafeRawPointer(lines + radius * inWidth + radius)
                                func pixels(_ x: Int, _ dy: Int32, _ dx: Int32) -> SIMD8<Float> {
                                    centre.loadUnaligned(
                                        fromByteOffset: (x + Int(dy) * inWidth + Int(dx)) * 4, as: SIMD8<Float>.self)
                                }
                                for x in stride(from: 0, to: outWidth, by: 8) {
                                    let v = pixels(x, 0, 0)
                                    var code = SIMD8<Int32>()
                                    for n in 0..<neighbours {
                                        let fy = offsets[4 * n], fx = offsets[4 * n + 1]
                                        let cy = offsets[4 * n + 2], cx = offsets[4 * n + 3]
                                        var t = weights[4 * n] * pixels(x, fy, fx)
                                        t += weights[4 * n + 1] * pixels(x, fy, cx)
                                        t += weights[4 * n + 2] * pixels(x, cy, fx)
                                        t += weights[4 * n + 3] * pixels(x, cy, cx)
                                        let d = t - v
                                        let set = t .> v .| (d .< Float.ulpOfOne .& d .> -Float.ulpOfOne)
                                        code.replace(with: code | Int32(1 << n), where: set)
                                    }
                                    let out = dst + row * outWidth + x
                                    for i in 0..<min(8, outWidth - x) { out[i] = mapping[Int(code[i])] }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension Image {
    /// Basic 3×3 LBP codes, optionally mapped to the 59 uniform labels.
    public func localBinaryPattern(uniform: Bool = false) -> Image {
        applying(LocalBinaryPattern(.basic, uniform: uniform))
    }

    /// Circular LBP(P, R) codes with bilinear sampling, as OpenCV's LBPH computes them.
    public func localBinaryPattern(neighbours: Int, radius: Int, uniform: Bool = false) -> Image {
        applying(LocalBinaryPattern(.circular(neighbours: neighbours, radius: radius), uniform: uniform))
    }
}
