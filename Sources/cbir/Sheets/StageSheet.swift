import ImageKernels

/// Turns rendered stages into one picture a person can look at.
enum StageSheet {
    /// An 8-bit version of a one-plane buffer: floats stretched from their minimum to their maximum.
    static func viewable(_ buffer: PixelBuffer) -> PixelBuffer {
        guard buffer.descriptor.elementType == .float32 else { return buffer }
        let values = buffer.floatValues.map { $0.isFinite ? $0 : 0 }
        let low = values.min() ?? 0, high = values.max() ?? 0
        let scale = high > low ? 255 / (high - low) : 0
        return PixelBuffer(descriptor: buffer.descriptor.with(elementType: .uint8)) { out in
            for (i, value) in values.enumerated() { out[i] = UInt8(rounding: (value - low) * scale) }
        }
    }

    /// Gray images placed left to right, top-aligned, 8 px apart on a white background.
    static func sideBySide(_ images: [PixelBuffer], gap: Int = 8) throws -> PixelBuffer {
        let width = images.reduce(0) { $0 + $1.descriptor.width } + gap * (images.count - 1)
        let height = images.map(\.descriptor.height).max() ?? 0
        var sheet = [UInt8](repeating: 255, count: width * height)
        var left = 0
        for image in images {
            let d = image.descriptor
            for y in 0..<d.height {
                sheet.replaceSubrange(
                    y * width + left..<y * width + left + d.width,
                    with: image.bytes[y * d.width..<(y + 1) * d.width])
            }
            left += d.width + gap
        }
        return try PixelBuffer(width: width, height: height, values: sheet)
    }
}
