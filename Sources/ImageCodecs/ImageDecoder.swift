import Foundation
import ImageKernels

/// Decodes JPEG, PNG and PGM/PPM files into planar `uint8` pixel buffers (1, 3 or 4 channels),
/// recognising the format by content, not by the file name.
///
/// ```swift
/// let photo = try ImageDecoder.decode(contentsOf: "photo.jpg",
///                                     options: DecodingOptions(grayscale: true, minimumLongSide: 640))
/// ```
public enum ImageDecoder {
    /// Reads and decodes a file.
    public static func decode(contentsOf path: String, options: DecodingOptions = DecodingOptions()) throws(ImageCodecError) -> PixelBuffer {
        try decode(try readFile(path, limit: options.maximumFileBytes), path: path, options: options)
    }

    /// How many times smaller than stored `decode` makes these bytes with these options: the DCT
    /// reduction of a JPEG (1, 2, 4 or 8), 1 for other formats. Multiply decoded coordinates by it to get
    /// the file's own pixels.
    public static func reduction(of bytes: [UInt8], options: DecodingOptions) -> Int {
        ImageFormat(sniffing: bytes) == .jpeg ? JPEGCodec.reduction(bytes, options: options) : 1
    }

    /// A file's bytes, refused with a typed error when unreadable or over `limit` bytes: for callers that
    /// need the bytes themselves too (to hash them, say) and then decode them from memory.
    public static func contents(of path: String, limit: Int = DecodingOptions().maximumFileBytes) throws(ImageCodecError) -> [UInt8] {
        try readFile(path, limit: limit)
    }

    /// Decodes bytes already in memory; `path` names them in errors.
    public static func decode(_ bytes: [UInt8], path: String, options: DecodingOptions = DecodingOptions()) throws(ImageCodecError) -> PixelBuffer {
        guard !bytes.isEmpty else { throw .empty(path: path) }
        guard let format = ImageFormat(sniffing: bytes) else { throw .unrecognizedFormat(path: path) }
        var image: PixelBuffer
        switch format {
        case .jpeg:
            image = try JPEGCodec.decode(bytes, path: path, options: options)
            if options.appliesOrientation, let orientation = ExifOrientation(jpeg: bytes) {
                image = orientation.apply(to: image)
            }
        case .png:
            image = try PNGCodec.decode(bytes, path: path, options: options)
        case .pnm:
            image = try PNMCodec.decode(bytes, path: path, options: options)
        }
        if options.grayscale && image.descriptor.channels != 1 {
            image = try luma(of: image, path: path)
        }
        return image
    }

    /// Rejects a header's size before anything is allocated for it.
    static func checkSize(width: Int, height: Int, path: String, options: DecodingOptions) throws(ImageCodecError) {
        guard width > 0, height > 0 else {
            throw .corrupt(path: path, detail: "header gives a size of \(width)×\(height)")
        }
        guard width.multipliedReportingOverflow(by: height).partialValue <= options.maximumPixels,
              width <= options.maximumPixels, height <= options.maximumPixels else {
            throw .tooLarge(path: path, width: width, height: height, limit: options.maximumPixels)
        }
    }

    /// A planar buffer from interleaved 8-bit samples.
    static func planar(interleaved samples: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int) -> PixelBuffer {
        let pixels = width * height
        let descriptor = ImageDescriptor(width: width, height: height, channels: channels, elementType: .uint8)
        return PixelBuffer(descriptor: descriptor) { out in
            guard let source = samples.baseAddress, samples.count >= out.count else { return }
            for i in 0..<pixels {
                let pixel = source + i * channels
                for c in 0..<channels { out[c * pixels + i] = pixel[c] }
            }
        }
    }

    /// BT.601 luma of an RGB(A) image, by the framework's own grayscale filter on the CPU device.
    private static func luma(of image: PixelBuffer, path: String) throws(ImageCodecError) -> PixelBuffer {
        do {
            return try RenderContext(device: .cpu).render(Image(image).grayscale())
        } catch {
            throw .unsupported(path: path, detail: "cannot convert \(image.descriptor.channels) channels to gray: \(error)")
        }
    }

    private static func readFile(_ path: String, limit: Int) throws(ImageCodecError) -> [UInt8] {
        do { return try RegularFile.contents(of: path, limit: limit) } catch { throw .unreadable(path: path, reason: error.description) }
    }
}
