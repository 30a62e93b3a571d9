/// Pixels in memory: what a render returns and what a source image holds.
public struct PixelBuffer: Sendable, Equatable {
    /// The shape and element type of `bytes`.
    public let descriptor: ImageDescriptor
    /// Raw elements, plane after plane, in host byte order.
    public let bytes: [UInt8]

    /// Wraps raw bytes; fails when their count does not match the descriptor.
    public init(descriptor: ImageDescriptor, bytes: [UInt8]) throws(RenderError) {
        guard bytes.count == descriptor.byteCount else {
            throw .sizeMismatch(expected: descriptor.byteCount, actual: bytes.count)
        }
        self.descriptor = descriptor
        self.bytes = bytes
    }

    /// A buffer of `descriptor.byteCount` zeroed bytes that `body` fills: sized by construction, so it
    /// cannot fail.
    public init(descriptor: ImageDescriptor, initializingWith body: (UnsafeMutableRawBufferPointer) -> Void) {
        var bytes = [UInt8](repeating: 0, count: descriptor.byteCount)
        bytes.withUnsafeMutableBytes(body)
        self.init(unchecked: descriptor, bytes: bytes)
    }

    /// An 8-bit image from planar values.
    public init(width: Int, height: Int, channels: Int = 1, batch: Int = 1, values: [UInt8]) throws(RenderError) {
        try self.init(
            descriptor: ImageDescriptor(
                width: width, height: height, channels: channels,
                batch: batch, elementType: .uint8),
            bytes: values)
    }

    /// A float image from planar values.
    public init(width: Int, height: Int, channels: Int = 1, batch: Int = 1, values: [Float]) throws(RenderError) {
        let descriptor = ImageDescriptor(
            width: width, height: height, channels: channels,
            batch: batch, elementType: .float32)
        let bytes = values.withUnsafeBytes { Array($0) }
        try self.init(descriptor: descriptor, bytes: bytes)
    }

    /// The elements as 8-bit values; empty unless the element type is `uint8`.
    public var uint8Values: [UInt8] {
        descriptor.elementType == .uint8 ? bytes : []
    }

    /// The elements as 32-bit integers; empty unless the element type is `uint32`.
    public var uint32Values: [UInt32] {
        guard descriptor.elementType == .uint32 else { return [] }
        return [UInt32](unsafeUninitializedCapacity: descriptor.elementCount) { out, count in
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(out).copyMemory(from: $0) }
            count = descriptor.elementCount
        }
    }

    /// The elements as floats; integer elements are converted as they are (0...255 for `uint8`).
    public var floatValues: [Float] {
        switch descriptor.elementType {
        case .uint8:
            return bytes.map(Float.init)
        case .uint32:
            return uint32Values.map(Float.init)
        case .float32:
            return [Float](unsafeUninitializedCapacity: descriptor.elementCount) { out, count in
                bytes.withUnsafeBytes { raw in
                    UnsafeMutableRawBufferPointer(out).copyMemory(from: raw)
                }
                count = descriptor.elementCount
            }
        }
    }

    /// Planes `range` of the batch, each with all channels.
    public func images(_ range: Range<Int>) -> PixelBuffer {
        let imageBytes = descriptor.planePixelCount * descriptor.channels * descriptor.elementType.byteSize
        var sub = descriptor
        sub.batch = range.count
        return PixelBuffer(
            unchecked: sub, bytes: Array(bytes[range.lowerBound * imageBytes..<range.upperBound * imageBytes]))
    }

    /// Stacks single images of one shape into a batch.
    public static func batch(_ images: [PixelBuffer]) throws(RenderError) -> PixelBuffer {
        guard let first = images.first else {
            throw .invalidInput(filter: "batch", reason: "no images to stack")
        }
        var descriptor = first.descriptor
        descriptor.batch = 1
        for image in images {
            var shape = image.descriptor
            shape.batch = 1
            guard shape == descriptor else {
                throw .invalidInput(
                    filter: "batch", reason: "image \(image.descriptor) differs from \(first.descriptor)")
            }
        }
        descriptor.batch = images.reduce(0) { $0 + $1.descriptor.batch }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(descriptor.byteCount)
        for image in images { bytes += image.bytes }
        return PixelBuffer(unchecked: descriptor, bytes: bytes)
    }

    /// The same images with exactly three colour planes each: a gray plane repeated as red, green and blue,
    /// planes past the third (alpha) dropped. Networks trained on RGB read this.
    public func rgb() -> PixelBuffer {
        guard descriptor.channels != 3 else { return self }
        let planeBytes = descriptor.planePixelCount * descriptor.elementType.byteSize
        var rgb = descriptor
        rgb.channels = 3
        var result: [UInt8] = []
        result.reserveCapacity(rgb.byteCount)
        for image in 0..<descriptor.batch {
            let first = image * descriptor.channels
            for channel in 0..<3 {
                let plane = first + (descriptor.channels >= 3 ? channel : 0)
                result += bytes[plane * planeBytes..<(plane + 1) * planeBytes]
            }
        }
        return PixelBuffer(unchecked: rgb, bytes: result)
    }

    init(unchecked descriptor: ImageDescriptor, bytes: [UInt8]) {
        self.descriptor = descriptor
        self.bytes = bytes
    }
}
