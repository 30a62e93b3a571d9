/// An immutable, lazy image recipe: a source buffer, or a filter applied to other images.
///
/// Nothing is computed until a ``RenderContext`` renders the recipe. A recipe may be shared by
/// several others; a render computes each shared node once.
///
/// ```swift
/// let face = Image(buffer)                       // 128×128 UInt8, batch of 1,000
/// let codes = face.gammaAdjusted(0.2)
///     .differenceOfGaussians(sigma1: 1, sigma2: 2)
///     .contrastEqualized()
///     .localBinaryPattern()
/// let pixels = try RenderContext().render(codes)
/// ```
public struct Image: Sendable {
    final class Node: Sendable {
        enum Content: Sendable {
            case buffer(PixelBuffer)
            case filter(any Filter, [Image])
            case resident(ResidentImage)
        }
        let content: Content
        let descriptor: Result<ImageDescriptor, RenderError>

        init(content: Content, descriptor: Result<ImageDescriptor, RenderError>) {
            self.content = content
            self.descriptor = descriptor
        }
    }

    let node: Node

    /// An image whose pixels are this buffer.
    public init(_ buffer: PixelBuffer) {
        node = Node(content: .buffer(buffer), descriptor: .success(buffer.descriptor))
    }

    /// An image already on a device (see ``RenderContext/makeResidentImage(_:)``).
    init(_ resident: ResidentImage) {
        node = Node(content: .resident(resident), descriptor: .success(resident.descriptor))
    }

    /// The result of a filter over these inputs; an invalid combination fails when rendered.
    public init(applying filter: any Filter, to inputs: [Image]) {
        let descriptor = Result { () throws(RenderError) -> ImageDescriptor in
            let shapes = try inputs.map { (input) throws(RenderError) in try input.descriptor }
            return try filter.outputDescriptor(for: shapes)
        }
        node = Node(content: .filter(filter, inputs), descriptor: descriptor)
    }

    /// The shape and element type this recipe renders to; throws if the recipe is invalid.
    public var descriptor: ImageDescriptor {
        get throws(RenderError) { try node.descriptor.get() }
    }

    /// This image filtered: `self` is the filter's first input, `others` follow.
    public func applying(_ filter: some Filter, with others: [Image] = []) -> Image {
        Image(applying: filter, to: [self] + others)
    }
}
