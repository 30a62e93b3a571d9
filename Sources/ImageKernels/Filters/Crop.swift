import ImageKernelsCL

/// A rectangle in pixel coordinates, origin at the top-left corner of a plane.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

/// Copies a rectangle out of every plane; the rectangle must lie inside the image.
public struct Crop: Filter {
    public let rect: PixelRect
    public var name: String { "crop \(rect)" }

    public init(_ rect: PixelRect) {
        self.rect = rect
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, oneOf: [.uint8, .float32])
        guard rect.x >= 0, rect.y >= 0, rect.width > 0, rect.height > 0,
            rect.x + rect.width <= input.width, rect.y + rect.height <= input.height
        else {
            throw .invalidInput(
                filter: name, reason: "rectangle is not inside the \(input.width)×\(input.height) image")
        }
        return input.with(width: rect.width, height: rect.height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        func launch<T: PixelElement>(_ kernel: Kernel<Arguments<T>>) throws(RenderError) {
            try encoder.launch(
                kernel,
                Arguments(
                    src: .init(encoder.input), dst: .init(encoder.output), inWidth: Int32(input.width),
                    inHeight: Int32(input.height), originX: Int32(rect.x), originY: Int32(rect.y),
                    outWidth: Int32(output.width), outHeight: Int32(output.height)),
                over: [output.width, output.height, output.planeCount])
        }
        try byPixelType(
            input.elementType, uint8: { () throws(RenderError) in try launch(Self.uint8) },
            float32: { () throws(RenderError) in try launch(Self.float32) })
    }

    struct Arguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<Pixel>
        var inWidth: Int32
        var inHeight: Int32
        var originX: Int32
        var originY: Int32
        var outWidth: Int32
        var outHeight: Int32
    }

    static let uint8 = kernel(UInt8.self)
    static let float32 = kernel(Float.self)

    private static func kernel<T: PixelElement>(_ type: T.Type) -> Kernel<Arguments<T>> {
        Kernel(
            "crop_copy", in: KernelSource(name: "Crop", bytes: ImageKernelsCL.crop), options: T.pixelOptions,
            schedules: .perPixel
        ) { arguments, grid in
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight), originX = Int(arguments.originX)
            let originY = Int(arguments.originY), outWidth = Int(arguments.outWidth),
                outHeight = Int(arguments.outHeight)
            CPUParallel.forEachRange(grid[2] * outHeight) { rows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                for row in rows {
                    let plane = row / outHeight, y = row % outHeight
                    (dst + row * outWidth).update(
                        from: src + (plane * inHeight + originY + y) * inWidth + originX,
                        count: outWidth)
                }
            }
        }
    }
}

extension Image {
    /// The rectangle `rect` of every plane.
    public func cropped(to rect: PixelRect) -> Image {
        applying(Crop(rect))
    }
}
