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
    public static func decode(contentsOf path: String, options: DecodingOptions = DecodingOptions())
        throws(ImageCodecError) -> PixelBuffer
    {
        try decode(try readFile(path, limit: options.maximumFileBytes), path: path, options: options)
    }

    /// How many times smaller than stored `decode` makes these bytes with these options (1, 2, 4 or 8; 1
    /// when the header cannot be read). Multiply decoded coordinates by it to get the file's own pixels.
    public static func reduction(of bytes: [UInt8], options: DecodingOptions) -> Int {
        let size: (width: Int, height: Int)?
        switch ImageFormat(sniffing: bytes) {
        case .jpeg: size = JPEGCodec.size(bytes)
        case .png: size = PNGCodec.size(bytes)
        case .pnm: size = PNMCodec.size(bytes)
        case nil: size = nil
        }
        return size.map { reduction(width: $0.width, height: $0.height, minimumLongSide: options.minimumLongSide) } ?? 1
    }

    /// The reduction (1, 2, 4 or 8) whose longer side, ⌈side / reduction⌉, is still at least `minimumLongSide`:
    /// the largest such, or 1 without a minimum. JPEGs take it in their DCT, other formats by averaging.
    static func reduction(width: Int, height: Int, minimumLongSide: Int?) -> Int {
        guard let minimumLongSide else { return 1 }
        return [8, 4, 2].first { (max(width, height) + $0 - 1) / $0 >= minimumLongSide } ?? 1
    }

    /// A file's bytes, refused with a typed error when unreadable or over `limit` bytes: for callers that
    /// need the bytes themselves too (to hash them, say) and then decode them from memory.
    public static func contents(of path: String, limit: Int = DecodingOptions().maximumFileBytes)
        throws(ImageCodecError) -> [UInt8]
    {
        try readFile(path, limit: limit)
    }

    /// Decodes bytes already in memory; `path` names them in errors.
    public static func decode(_ bytes: [UInt8], path: String, options: DecodingOptions = DecodingOptions())
        throws(ImageCodecError) -> PixelBuffer
    {
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
            width <= options.maximumPixels, height <= options.maximumPixels
        else {
            throw .tooLarge(path: path, width: width, height: height, limit: options.maximumPixels)
        }
        if let ratio = options.maximumAspectRatio, max(width, height) / ratio > min(width, height) {
            throw .unsupported(
                path: path, detail: "\(width)×\(height) pixels: one side is over \(ratio) times the other")
        }
    }

    /// Runs a codec's `decode` of an image of this size and channel count, stored with `sampleBytes` bytes a
    /// sample and made `reduction` times smaller, with the memory its interleaved samples and planar result
    /// take reserved in ``DecodingMemory/shared``.
    static func decoding<Decoded>(
        width: Int, height: Int, channels: Int, sampleBytes: Int = 1, reduction: Int = 1, path: String,
        _ decode: () throws(ImageCodecError) -> Decoded
    ) throws(ImageCodecError) -> Decoded {
        let reduced = ((width + reduction - 1) / reduction) * ((height + reduction - 1) / reduction)
        return try DecodingMemory.shared.reserving(
            (width * height * sampleBytes + reduced) * channels, for: path, decode)
    }

    /// A planar buffer from interleaved 8-bit samples, `reduction` times smaller (each pixel the rounded mean
    /// of a square of that side, cut at the right and bottom edges, as TurboJPEG's sizes are).
    static func planar(
        interleaved samples: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int,
        reduction: Int = 1
    ) -> PixelBuffer {
        let outWidth = (width + reduction - 1) / reduction, outHeight = (height + reduction - 1) / reduction
        let pixels = outWidth * outHeight
        let descriptor = ImageDescriptor(width: outWidth, height: outHeight, channels: channels, elementType: .uint8)
        return PixelBuffer(descriptor: descriptor) { bytes in
            guard let source = samples.baseAddress, samples.count >= width * height * channels,
                let out = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            else { return }
            guard reduction > 1 else {
                // RGB, most photos, in one loop of a fixed stride, which the compiler turns into shuffles;
                // other layouts a plane at a time, so that each loop reads one stride and writes one row.
                if channels == 3 {
                    let (red, green, blue) = (out, out + pixels, out + 2 * pixels)
                    for i in 0..<pixels {
                        red[i] = source[3 * i]
                        green[i] = source[3 * i + 1]
                        blue[i] = source[3 * i + 2]
                    }
                    return
                }
                for c in 0..<channels {
                    let plane = out + c * pixels, first = source + c
                    for i in 0..<pixels { plane[i] = first[i * channels] }
                }
                return
            }
            // A block row's samples are summed down its rows first, as they lie (whole rows of bytes, which the
            // compiler vectorizes), then across each block's columns: the second pass reads 1/reduction of
            // them. Eight rows of 255 fit in 16 bits.
            let rowLength = width * channels
            let columnSums = UnsafeMutablePointer<UInt16>.allocate(capacity: rowLength)
            defer { columnSums.deallocate() }
            for row in 0..<outHeight {
                let rows = row * reduction..<min((row + 1) * reduction, height)
                let first = source + rows.lowerBound * rowLength
                for i in 0..<rowLength { columnSums[i] = UInt16(first[i]) }
                for y in rows.dropFirst() {
                    let line = source + y * rowLength
                    for i in 0..<rowLength { columnSums[i] &+= UInt16(line[i]) }
                }
                for column in 0..<outWidth {
                    let columns = column * reduction..<min((column + 1) * reduction, width)
                    let count = rows.count * columns.count
                    // Whole blocks hold a power of two of pixels: a shift, where a division took most of the time.
                    let shift = count.nonzeroBitCount == 1 ? count.trailingZeroBitCount : nil
                    for c in 0..<channels {
                        var sum = 0
                        for x in columns { sum &+= Int(columnSums[x * channels + c]) }
                        let rounded = sum + count / 2
                        out[c * pixels + row * outWidth + column] = UInt8(
                            shift.map { rounded >> $0 } ?? rounded / count)
                    }
                }
            }
        }
    }

    /// BT.601 luma of an RGB(A) image, by the framework's own grayscale filter on the CPU device.
    private static func luma(of image: PixelBuffer, path: String) throws(ImageCodecError) -> PixelBuffer {
        do {
            return try RenderContext(device: .cpu).render(Image(image).grayscale())
        } catch {
            throw .unsupported(
                path: path, detail: "cannot convert \(image.descriptor.channels) channels to gray: \(error)")
        }
    }

    private static func readFile(_ path: String, limit: Int) throws(ImageCodecError) -> [UInt8] {
        do {
            return try RegularFile.contents(of: path, limit: limit)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
    }
}
