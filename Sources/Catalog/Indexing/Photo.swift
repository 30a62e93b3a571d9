import ImageCodecs
import ImageKernels

/// A photo as analyses see it: decoded once, reduced to the size indexing works at, in colour (or gray
/// where the file is gray), with the factor back to the file's own pixels.
public struct Photo: Sendable {
    /// The file.
    public let path: String
    /// The decoded pixels (1, 3 or 4 planes of `uint8`).
    public let pixels: PixelBuffer
    /// One gray plane of the same size.
    public let gray: PixelBuffer
    /// Original pixels per decoded pixel (1, 2, 4 or 8).
    public let scale: Double

    /// How photos are decoded for indexing and probing: reduced to a long side of at least 640 pixels; an
    /// image whose one side is over 100 times the other is refused at its header (a panorama of 360° is
    /// about 8 times as wide as high; the print resizes the shorter side to 256 pixels, and no kernel takes
    /// a side beyond 32768).
    public static let decoding = DecodingOptions(minimumLongSide: 640, maximumAspectRatio: 100)

    /// Decodes a file's bytes as indexing does; the gray plane is rendered on `context`.
    public init(path: String, bytes: [UInt8], context: RenderContext) throws {
        pixels = try ImageDecoder.decode(bytes, path: path, options: Self.decoding)
        gray = try context.grayPlane(of: pixels)
        scale = Double(ImageDecoder.reduction(of: bytes, options: Self.decoding))
        self.path = path
    }
}
