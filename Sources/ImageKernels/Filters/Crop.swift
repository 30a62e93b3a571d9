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
              rect.x + rect.width <= input.width, rect.y + rect.height <= input.height else {
            throw .invalidInput(filter: name, reason: "rectangle is not inside the \(input.width)×\(input.height) image")
        }
        return input.with(width: rect.width, height: rect.height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        let kernel = Kernel(.cropCopy, pixelType: input.elementType, uint8: Self.copy(UInt8.self), float32: Self.copy(Float.self))
        try encoder.launchPerPixel(kernel, [.image(encoder.input), .image(encoder.output), .int(input.width),
                                            .int(input.height), .int(rect.x), .int(rect.y),
                                            .int(output.width), .int(output.height)],
                                   over: output)
    }

    private static func copy<T: PixelElement>(_ type: T.Type) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let inWidth = invocation.int(2), inHeight = invocation.int(3), originX = invocation.int(4)
            let originY = invocation.int(5), outWidth = invocation.int(6), outHeight = invocation.int(7)
            CPUParallel.forEachRange(invocation.globalSize[2] * outHeight) { rows in
                let src = invocation.pointer(0, as: T.self), dst = invocation.pointer(1, as: T.self)
                for row in rows {
                    let plane = row / outHeight, y = row % outHeight
                    (dst + row * outWidth).update(from: src + (plane * inHeight + originY + y) * inWidth + originX,
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
