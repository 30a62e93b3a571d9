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
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }  // pixel data starts: no Exif before it
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { return nil }
            let segment = bytes[(position + 4)..<(position + 2 + length)]
            if marker == 0xE1, segment.starts(with: Array("Exif".utf8) + [0, 0]) {
                guard let value = Self.tiffOrientation(Array(segment.dropFirst(6))) else { return nil }
                self.init(rawValue: value)
                return
            }
            position += 2 + length
        }
        return nil
    }

    /// Reads tag 0x0112 of IFD0 in a TIFF block.
    private static func tiffOrientation(_ tiff: [UInt8]) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func read(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= tiff.count else { return nil }
            let bytes = tiff[offset..<offset + size]
            return (littleEndian ? bytes.reversed() : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let ifd = read(4, 4), let entries = read(ifd, 2) else { return nil }
        for entry in 0..<entries {
            let at = ifd + 2 + entry * 12
            guard let tag = read(at, 2) else { return nil }
            if tag == 0x0112 { return read(at + 8, 2) }
        }
        return nil
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
