import ImageKernelsCL

/// One level down an image pyramid, exactly as dlib's `pyramid_down<2>`: a 5×5 binomial filter sampled
/// every other pixel, integer sums divided by 256 rounding down. A `uint8` image of w × h becomes
/// ((w − 3) / 2) × ((h − 3) / 2); output pixel (x, y) lies over input (2x + 2, 2y + 2). dlib extracts face
/// chips from such a pyramid when the face is much larger than the chip.
public struct PyramidDown: Filter {
    public var name: String { "pyramid down" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, of: .uint8)
        guard input.width > 8, input.height > 8 else {
            throw .invalidInput(filter: name, reason: "input \(input) must be larger than 8×8")
        }
        return input.with(width: (input.width - 3) / 2, height: (input.height - 3) / 2)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output), width: Int32(input.width),
                height: Int32(input.height), outWidth: Int32(output.width),
                outHeight: Int32(output.height)),
            over: [output.width, output.height, output.planeCount])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<UInt8>
        var dst: KernelMutableBuffer<UInt8>
        var width: Int32
        var height: Int32
        var outWidth: Int32
        var outHeight: Int32
    }

    static let kernel = Kernel<Arguments>(
        "pyramid_down", in: KernelSource(name: "PyramidDown", bytes: ImageKernelsCL.pyramidDown),
        schedules: .perPixel
    ) { arguments, grid in
        let width = Int(arguments.width), height = Int(arguments.height)
        let outWidth = Int(arguments.outWidth), outHeight = Int(arguments.outHeight)
        // Down the five rows first, over every column read, as the rows lie (which vectorizes; at most
        // 16 · 255, in 16 bits), then across every other column. Integer sums: the same in any order.
        let columns = 2 * outWidth + 3
        CPUParallel.forEachRange(grid[2] * outHeight) { rows in
            let src = arguments.src.elements, dst = arguments.dst.elements
            let sums = UnsafeMutablePointer<UInt16>.allocate(capacity: columns)
            defer { sums.deallocate() }
            for row in rows {
                let plane = row / outHeight, y = row % outHeight
                let r0 = src + plane * width * height + 2 * y * width
                let (r1, r2, r3, r4) = (r0 + width, r0 + 2 * width, r0 + 3 * width, r0 + 4 * width)
                for c in 0..<columns {
                    sums[c] =
                        UInt16(r0[c]) &+ 4 &* UInt16(r1[c]) &+ 6 &* UInt16(r2[c]) &+ 4 &* UInt16(r3[c])
                        &+ UInt16(r4[c])
                }
                for x in 0..<outWidth {
                    let s = sums + 2 * x
                    let sum = UInt32(s[0]) + 4 * UInt32(s[1]) + 6 * UInt32(s[2]) + 4 * UInt32(s[3]) + UInt32(s[4])
                    dst[row * outWidth + x] = UInt8(sum / 256)
                }
            }
        }
    }
}

extension Image {
    /// One level down dlib's image pyramid (see ``PyramidDown``).
    public func pyramidDown() -> Image {
        applying(PyramidDown())
    }
}
