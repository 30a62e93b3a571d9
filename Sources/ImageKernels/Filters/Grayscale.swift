import ImageKernelsCL

/// BT.601 luma of RGB or RGBA images (alpha ignored); one-channel images pass through unchanged.
/// `uint8` uses OpenCV's 14-bit fixed point and is exact; floats use 0.299 R + 0.587 G + 0.114 B.
public struct Grayscale: Filter {
    public var name: String { "grayscale" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        var input = try singleInput(inputs, oneOf: [.uint8, .float32])
        guard input.channels == 3 || input.channels == 4 else {
            throw .invalidInput(filter: name, reason: "takes 3 or 4 channels, got \(input.channels)")
        }
        input.channels = 1
        return input
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        func launch<T: PixelElement>(_ kernel: Kernel<Arguments<T>>) throws(RenderError) {
            try encoder.launch(
                kernel,
                Arguments(
                    src: .init(encoder.input), dst: .init(encoder.output),
                    pixels: Int32(input.planePixelCount), channels: Int32(input.channels)),
                over: [input.planePixelCount, input.batch])
        }
        try byPixelType(
            input.elementType, uint8: { () throws(RenderError) in try launch(Self.uint8) },
            float32: { () throws(RenderError) in try launch(Self.float32) })
    }

    struct Arguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<Pixel>
        var pixels: Int32
        var channels: Int32
    }

    static let uint8 = kernel(fixedPointLuma)
    static let float32 = kernel(floatLuma)

    @Sendable private static func fixedPointLuma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let weighted: Int32 = 4899 * Int32(r) + 9617 * Int32(g) + 1868 * Int32(b)
        return UInt8((weighted + 8192) >> 14)
    }

    @Sendable private static func floatLuma(_ r: Float, _ g: Float, _ b: Float) -> Float {
        let redGreen: Float = 0.299 * r + 0.587 * g
        return redGreen + 0.114 * b
    }

    /// The kernel for one element type; its twin maps (R, G, B) to luma with `combine` for every pixel of every image.
    private static func kernel<T: PixelElement>(_ combine: @escaping @Sendable (T, T, T) -> T) -> Kernel<Arguments<T>> {
        Kernel(
            "grayscale_luma", in: KernelSource(name: "Grayscale", bytes: ImageKernelsCL.grayscale),
            options: T.pixelOptions,
            schedules: .uniform([256, 1])
        ) { arguments, grid in
            let pixels = Int(arguments.pixels), channels = Int(arguments.channels)
            CPUParallel.forEachRange(grid[1]) { images in
                let src = arguments.src.elements, dst = arguments.dst.elements
                for image in images {
                    let red = src + image * channels * pixels, green = red + pixels, blue = green + pixels
                    let out = dst + image * pixels
                    for i in 0..<pixels { out[i] = combine(red[i], green[i], blue[i]) }
                }
            }
        }
    }
}

extension Image {
    /// BT.601 luma; a one-channel image is returned as it is.
    public func grayscale() -> Image {
        if (try? descriptor.channels) == 1 { return self }
        return applying(Grayscale())
    }
}

extension RenderContext {
    /// The one gray plane of `pixels`: the buffer itself where it has one channel (no render), else its
    /// BT.601 luma rendered here.
    public func grayPlane(of pixels: PixelBuffer) throws(RenderError) -> PixelBuffer {
        pixels.descriptor.channels == 1 ? pixels : try render(Image(pixels).grayscale())
    }
}
