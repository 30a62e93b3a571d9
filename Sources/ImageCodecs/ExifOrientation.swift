import ImageKernels

/// The EXIF orientation tag (0x0112): how the stored pixels must be turned to stand upright.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case mirrored = 2
    case down = 3
    case flippedVertically = 4
    /// Mirrored across the main diagonal.
    case transposed = 5
    /// Stored rotated; turn 90° clockwise to display.
    case rotatedClockwise = 6
    /// Mirrored across the anti-diagonal.
    case transversed = 7
    /// Stored rotated; turn 90° counter-clockwise to display.
    case rotatedCounterClockwise = 8

    /// The orientation in a JPEG's APP1 Exif segment, or nil when there is none or it is malformed.
    public init?(jpeg bytes: [UInt8]) {
        guard let value = ExifTags(jpeg: bytes)?.orientation else { return nil }
        self.init(rawValue: value)
    }

    /// The image turned upright: for each displayed pixel, the stored pixel it shows.
    public func apply(to image: PixelBuffer) -> PixelBuffer {
        guard self != .up else { return image }
        let d = image.descriptor, w = d.width, h = d.height
        let swaps = rawValue >= 5
        let outWidth = swaps ? h : w, outHeight = swaps ? w : h
        let elementSize = d.elementType.byteSize
        return PixelBuffer(descriptor: d.with(width: outWidth, height: outHeight)) { out in
            for plane in 0..<d.planeCount {
                let source = plane * w * h, target = plane * outWidth * outHeight
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy) = storedPosition(x: x, y: y, width: w, height: h)
                        let from = (source + sy * w + sx) * elementSize, to = (target + y * outWidth + x) * elementSize
                        for byte in 0..<elementSize { out[to + byte] = image.bytes[from + byte] }
                    }
                }
            }
        }
    }

    private func storedPosition(x: Int, y: Int, width w: Int, height h: Int) -> (Int, Int) {
        switch self {
        case .up: (x, y)
        case .mirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .flippedVertically: (x, h - 1 - y)
        case .transposed: (y, x)
        case .rotatedClockwise: (y, h - 1 - x)
        case .transversed: (w - 1 - y, h - 1 - x)
        case .rotatedCounterClockwise: (w - 1 - y, x)
        }
    }
}
