import CPNG
import ImageKernels

/// PNG through libpng's simplified API: gray, RGB, RGBA, palette and 16-bit files to 8-bit planes. The
/// files libpng would hand over unchanged, most of them, are read by ``PlainPNG`` instead, faster.
enum PNGCodec {
    static func decode(_ bytes: [UInt8], path: String, options: DecodingOptions) throws(ImageCodecError) -> PixelBuffer
    {
        let chunks = PNGChunks(bytes)
        try checkChunkLengths(chunks, path: path)
        if let plain = try PlainPNG.decode(bytes, chunks: chunks, path: path, options: options) { return plain }
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = bytes.withUnsafeBufferPointer { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw failure(image, path: path) }
        try ImageDecoder.checkSize(width: Int(image.width), height: Int(image.height), path: path, options: options)
        let hasColor = image.format & png_uint_32(PNG_FORMAT_FLAG_COLOR) != 0
        let hasAlpha = image.format & png_uint_32(PNG_FORMAT_FLAG_ALPHA) != 0
        // Sixteen-bit files are read as they are (libpng's linear formats) and rounded to 8 bits here;
        // asking libpng for 8 bits would treat them as linear light and re-encode them as sRGB.
        let sixteenBit = image.format & png_uint_32(PNG_FORMAT_FLAG_LINEAR) != 0
        let channels = hasColor ? (hasAlpha ? 4 : 3) : (hasAlpha && !options.grayscale ? 4 : 1)
        var format = png_uint_32(hasColor || channels == 4 ? PNG_FORMAT_FLAG_COLOR : 0)
        if channels == 4 { format |= png_uint_32(PNG_FORMAT_FLAG_ALPHA) }
        if sixteenBit { format |= png_uint_32(PNG_FORMAT_FLAG_LINEAR) }
        image.format = format
        let width = Int(image.width), height = Int(image.height)
        let samples = width * height * channels
        let reduction = ImageDecoder.reduction(width: width, height: height, minimumLongSide: options.minimumLongSide)
        // Sixteen-bit samples take two bytes, then one more once narrowed.
        return try ImageDecoder.decoding(
            width: width, height: height, channels: channels, sampleBytes: sixteenBit ? 3 : 1,
            reduction: reduction, path: path
        ) { () throws(ImageCodecError) in
            if sixteenBit {
                var wide = [UInt16](repeating: 0, count: samples)
                let finished = wide.withUnsafeMutableBytes {
                    png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
                }
                guard finished != 0 else { throw failure(image, path: path) }
                let narrow = eightBit(wide, channels: channels)
                return narrow.withUnsafeBufferPointer {
                    ImageDecoder.planar(
                        interleaved: $0, width: width, height: height, channels: channels, reduction: reduction)
                }
            }
            var pixels = [UInt8](repeating: 0, count: samples)
            let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            guard finished != 0 else { throw failure(image, path: path) }
            return pixels.withUnsafeBufferPointer {
                ImageDecoder.planar(
                    interleaved: $0, width: width, height: height, channels: channels, reduction: reduction)
            }
        }
    }

    /// The size in the header (IHDR, which must come first); nil when there is none.
    static func size(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        return (PNGChunks.number(in: bytes, at: 16), PNGChunks.number(in: bytes, at: 20))
    }

    /// Refuses a chunk that claims more bytes than the file has left, before libpng sees it: libpng allocates
    /// a chunk's length before reading it, so a few hundred bytes could make it ask for gigabytes (found by
    /// fuzzing). libpng would fail on such a file anyway, having read past the end.
    private static func checkChunkLengths(_ chunks: PNGChunks, path: String) throws(ImageCodecError) {
        if let overrun = chunks.overrun {
            throw .truncated(
                path: path, detail: "chunk \(overrun.type) claims \(overrun.length) bytes, \(overrun.left) are left")
        }
    }

    /// 16-bit samples rounded to 8 bits; libpng's linear RGBA is premultiplied, so colour is divided
    /// back by alpha first.
    private static func eightBit(_ wide: [UInt16], channels: Int) -> [UInt8] {
        func narrow(_ value: Int) -> UInt8 { UInt8((value * 255 + 32767) / 65535) }
        guard channels == 4 else { return wide.map { narrow(Int($0)) } }
        var out = [UInt8](repeating: 0, count: wide.count)
        for pixel in stride(from: 0, to: wide.count, by: 4) {
            let alpha = Int(wide[pixel + 3])
            for c in 0..<3 {
                out[pixel + c] = alpha == 0 ? 0 : narrow(min(65535, (Int(wide[pixel + c]) * 65535 + alpha / 2) / alpha))
            }
            out[pixel + 3] = narrow(alpha)
        }
        return out
    }

    /// Encodes a 1-, 3- or 4-channel `uint8` image.
    static func encode(_ buffer: PixelBuffer, path: String) throws(ImageCodecError) -> [UInt8] {
        let d = buffer.descriptor
        guard d.elementType == .uint8, d.batch == 1, [1, 3, 4].contains(d.channels) else {
            throw .encodingFailed(path: path, reason: "PNG takes one uint8 image of 1, 3 or 4 channels, got \(d)")
        }
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(d.width)
        image.height = png_uint_32(d.height)
        image.format =
            png_uint_32(d.channels == 1 ? 0 : PNG_FORMAT_FLAG_COLOR)
            | png_uint_32(d.channels == 4 ? PNG_FORMAT_FLAG_ALPHA : 0)
        let pixels = interleaved(buffer)
        var size = 0
        let sized = pixels.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil) }
        guard sized != 0 else { throw .encodingFailed(path: path, reason: messageText(image)) }
        var output = [UInt8](repeating: 0, count: size)
        let written = output.withUnsafeMutableBytes { target in
            pixels.withUnsafeBytes {
                png_image_write_to_memory(&image, target.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        guard written != 0 else { throw .encodingFailed(path: path, reason: messageText(image)) }
        return Array(output.prefix(size))
    }

    /// Interleaved samples of a planar image.
    static func interleaved(_ buffer: PixelBuffer) -> [UInt8] {
        let d = buffer.descriptor, pixels = d.planePixelCount
        guard d.channels > 1 else { return buffer.bytes }
        var out = [UInt8](repeating: 0, count: buffer.bytes.count)
        for c in 0..<d.channels {
            for i in 0..<pixels { out[i * d.channels + c] = buffer.bytes[c * pixels + i] }
        }
        return out
    }

    private static func failure(_ image: png_image, path: String) -> ImageCodecError {
        let text = messageText(image)
        let lower = text.lowercased()
        if lower.contains("eof") || lower.contains("end") || lower.contains("truncat") || lower.contains("not enough") {
            return .truncated(path: path, detail: text)
        }
        return .corrupt(path: path, detail: text)
    }

    private static func messageText(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
