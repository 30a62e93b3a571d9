import Foundation
import ImageKernels

/// Writes `uint8` images as PNG or JPEG.
public enum ImageEncoder {
    /// PNG bytes of a 1-, 3- or 4-channel image.
    public static func png(_ image: PixelBuffer) throws(ImageCodecError) -> [UInt8] {
        try PNGCodec.encode(image, path: "<memory>")
    }

    /// JPEG bytes of a 1- or 3-channel image at `quality` (1...100).
    public static func jpeg(_ image: PixelBuffer, quality: Int = 90) throws(ImageCodecError) -> [UInt8] {
        try JPEGCodec.encode(image, quality: min(max(quality, 1), 100), path: "<memory>")
    }

    /// Writes the image to `path`, as JPEG when the name ends in .jpg or .jpeg, else as PNG.
    public static func write(_ image: PixelBuffer, to path: String, quality: Int = 90) throws(ImageCodecError) {
        let lower = path.lowercased()
        let bytes: [UInt8]
        if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") {
            bytes = try JPEGCodec.encode(image, quality: min(max(quality, 1), 100), path: path)
        } else {
            bytes = try PNGCodec.encode(image, path: path)
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw .encodingFailed(path: path, reason: "cannot create the file")
        }
    }
}
