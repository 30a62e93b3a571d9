/// How to decode an image file.
public struct DecodingOptions: Sendable, Equatable {
    /// Decode to one BT.601 luma channel instead of the file's colour channels.
    public var grayscale: Bool
    /// Decode at the smallest scale (1, 1/2, 1/4 or 1/8) whose longer side is still at least this many
    /// pixels: JPEGs by their DCT, other formats by averaging squares of pixels; nil decodes at full size.
    public var minimumLongSide: Int?
    /// Headers claiming more pixels than this are rejected before any pixel memory is allocated.
    public var maximumPixels: Int
    /// Files larger than this many bytes are rejected before they are read.
    public var maximumFileBytes: Int
    /// Headers whose longer side exceeds the shorter this many times are rejected before any pixel memory is
    /// allocated (a strip of 65535 × 1 pixels is no photo, and resizing it for a network would be huge); nil
    /// takes any shape.
    public var maximumAspectRatio: Int?
    /// Rotate and flip as the EXIF orientation tag says, so that the result is upright.
    public var appliesOrientation: Bool

    public init(
        grayscale: Bool = false, minimumLongSide: Int? = nil, maximumPixels: Int = 100_000_000,
        maximumFileBytes: Int = 1 << 30, maximumAspectRatio: Int? = nil, appliesOrientation: Bool = true
    ) {
        self.grayscale = grayscale
        self.minimumLongSide = minimumLongSide
        self.maximumPixels = maximumPixels
        self.maximumFileBytes = maximumFileBytes
        self.maximumAspectRatio = maximumAspectRatio
        self.appliesOrientation = appliesOrientation
    }
}

/// The file formats the decoder recognises, by their leading bytes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, pnm

    /// The format whose signature starts `bytes`, if any.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if head.count >= 2, head[0] == UInt8(ascii: "P"),
            [
                UInt8(ascii: "2"), UInt8(ascii: "3"),
                UInt8(ascii: "5"), UInt8(ascii: "6"),
            ].contains(head[1])
        {
            self = .pnm
        } else {
            return nil
        }
    }
}
