/// The type of one pixel element of an image.
public enum ElementType: String, Sendable, Hashable, CaseIterable {
    /// Unsigned 8-bit integers: decoded photos, LBP codes.
    case uint8
    /// 32-bit floats: filter intermediates; values from `uint8` images map to 0...1.
    case float32
    /// Unsigned 32-bit integers: integral images (sums wrap modulo 2³², as OpenCV's do).
    case uint32

    /// Bytes per element.
    public var byteSize: Int {
        switch self {
        case .uint8: 1
        case .float32, .uint32: 4
        }
    }
}

/// The shape and element type of an image: a stack of `batch × channels` planes of `height × width`,
/// stored plane after plane, row-major within a plane.
public struct ImageDescriptor: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var batch: Int
    public var elementType: ElementType

    public init(width: Int, height: Int, channels: Int = 1, batch: Int = 1, elementType: ElementType) {
        self.width = width
        self.height = height
        self.channels = channels
        self.batch = batch
        self.elementType = elementType
    }

    /// Pixels in one plane.
    public var planePixelCount: Int { width * height }
    /// Number of planes: `batch × channels`.
    public var planeCount: Int { batch * channels }
    /// Elements in the whole stack.
    public var elementCount: Int { planePixelCount * planeCount }
    /// Bytes in the whole stack.
    public var byteCount: Int { elementCount * elementType.byteSize }

    /// The same shape with another element type.
    public func with(elementType: ElementType) -> ImageDescriptor {
        var copy = self
        copy.elementType = elementType
        return copy
    }

    /// The same stack with other plane dimensions.
    public func with(width: Int, height: Int) -> ImageDescriptor {
        var copy = self
        copy.width = width
        copy.height = height
        return copy
    }

    public var description: String {
        "\(batch)×\(channels)×\(height)×\(width) \(elementType.rawValue)"
    }
}
