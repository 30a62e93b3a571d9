import CDeflate
import Foundation
import ImageKernels

/// The PNGs that libpng's simplified API would hand over unchanged, read directly: 8-bit gray, RGB and
/// RGBA, not interlaced, with no chunk that asks for a colour transform. Their image data is inflated in
/// one call by libdeflate and their rows unfiltered in place, a pixel a vector, in less than half
/// libpng's time (zlib's inflate and a scalar Paeth filter), with the same pixels to the byte. A file
/// this reader does not take, or that is damaged in any way, is left to libpng (nil), which decodes it
/// or names its fault as before.
enum PlainPNG {
    /// Ancillary chunks that change the pixels libpng's simplified API gives (gamma, colour space,
    /// significant bits, transparency as alpha): files with one go to libpng.
    private static let transformingChunks: Set<String> = ["gAMA", "cHRM", "iCCP", "sBIT", "tRNS", "bKGD"]

    /// The pixels of a plain PNG, reduced as `options` ask; nil where the file is not one this reader
    /// takes or is damaged. Throws only what libpng's path would throw first for the same header: a size
    /// over the limits.
    static func decode(_ bytes: [UInt8], chunks: PNGChunks, path: String, options: DecodingOptions)
        throws(ImageCodecError) -> PixelBuffer?
    {
        guard let header = chunks.chunks.first, header.type == "IHDR", header.data.count == 13,
            let (width, height) = PNGCodec.size(bytes), chunks.chunks.last?.type == "IEND"
        else { return nil }
        let (bitDepth, colorType, compression, filter, interlace) = (
            bytes[24], bytes[25], bytes[26], bytes[27], bytes[28]
        )
        let channelsByType: [UInt8: Int] = [0: 1, 2: 3, 6: 4]
        guard bitDepth == 8, let channels = channelsByType[colorType], compression == 0, filter == 0, interlace == 0,
            width < 1 << 31, height < 1 << 31
        else { return nil }
        let body = chunks.chunks.dropFirst().dropLast()
        guard
            body.allSatisfy({ $0.type == "IDAT" || (!$0.isCritical && !transformingChunks.contains($0.type)) }),
            let firstData = body.firstIndex(where: { $0.type == "IDAT" })
        else { return nil }
        let data = body[firstData...].prefix { $0.type == "IDAT" }
        // The CRCs last: a file that is not plain is left to libpng without reading all of it.
        guard !body[data.endIndex...].contains(where: { $0.type == "IDAT" }),
            chunks.chunks.allSatisfy({ $0.isNamedValidly && intact($0, in: bytes) })
        else { return nil }

        try ImageDecoder.checkSize(width: width, height: height, path: path, options: options)
        let reduction = ImageDecoder.reduction(width: width, height: height, minimumLongSide: options.minimumLongSide)
        return try ImageDecoder.decoding(
            width: width, height: height, channels: channels, reduction: reduction, path: path
        ) { () throws(ImageCodecError) -> PixelBuffer? in
            var compressed: [UInt8] = []
            compressed.reserveCapacity(data.reduce(0) { $0 + $1.data.count })
            for chunk in data { compressed += bytes[chunk.data] }
            let rowBytes = width * channels, filtered = height * (rowBytes + 1)
            // Room for a pixel's four-byte reads and writes past the last row (see `unfilter`).
            let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: filtered + 4)
            defer { rows.deallocate() }
            guard inflate(compressed, into: rows, count: filtered),
                unfilter(rows, rows: height, rowBytes: rowBytes, pixelBytes: channels)
            else { return nil }
            return ImageDecoder.planar(
                interleaved: UnsafeBufferPointer(start: rows, count: height * rowBytes), width: width, height: height,
                channels: channels, reduction: reduction)
        }
    }

    /// Whether a chunk's CRC (of its type and data) matches: libpng refuses a critical chunk whose CRC is wrong.
    private static func intact(_ chunk: PNGChunks.Chunk, in bytes: [UInt8]) -> Bool {
        let stored = PNGChunks.number(in: bytes, at: chunk.data.upperBound)
        return bytes.withUnsafeBufferPointer { file in
            file.baseAddress.map {
                Int(libdeflate_crc32(0, $0 + chunk.data.lowerBound - 4, chunk.data.count + 4)) == stored
            } ?? false
        }
    }

    /// Inflates a zlib stream into exactly `count` bytes; false when it is damaged or holds another amount.
    private static func inflate(_ compressed: [UInt8], into output: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        guard let decompressor = libdeflate_alloc_decompressor() else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        return compressed.withUnsafeBytes {
            libdeflate_zlib_decompress(decompressor, $0.baseAddress, $0.count, output, count, nil) == LIBDEFLATE_SUCCESS
        }
    }

    /// Undoes PNG's row filters in place: `rows` rows of a filter byte then `rowBytes` bytes become the
    /// rows' pixels back to back, each row moved back over the filter bytes before it. A row is written
    /// only behind where it is read (its pixels land `y + 1` bytes before their filtered bytes), so no byte
    /// is overwritten before it is read; pixels of three bytes are read and written four at a time, which
    /// needs four bytes after `buffer`'s filtered rows. False at a filter type PNG does not have.
    static func unfilter(_ buffer: UnsafeMutablePointer<UInt8>, rows: Int, rowBytes: Int, pixelBytes: Int) -> Bool {
        let zeros = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes + 4)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0, count: rowBytes + 4)
        for y in 0..<rows {
            let source = buffer + y * (rowBytes + 1) + 1, row = buffer + y * rowBytes
            let above = y == 0 ? UnsafePointer(zeros) : UnsafePointer(buffer + (y - 1) * rowBytes)
            switch source[-1] {
            case 0: memmove(row, source, rowBytes)
            case 1:
                unfilter(source, into: row, above: above, rowBytes: rowBytes, pixelBytes: pixelBytes) { a, _, _ in a }
            case 2: addAbove(source, into: row, above: above, count: rowBytes)
            case 3:
                unfilter(source, into: row, above: above, rowBytes: rowBytes, pixelBytes: pixelBytes) { a, b, _ in
                    (a &+ b) &>> 1
                }
            case 4:
                unfilter(source, into: row, above: above, rowBytes: rowBytes, pixelBytes: pixelBytes) { a, b, c in
                    paeth(a, b, c)
                }
            default: return false
            }
        }
        return true
    }

    /// The Up filter: each byte plus the one above it, sixteen at a time.
    private static func addAbove(
        _ source: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int
    ) {
        var i = 0
        while i + 16 <= count {
            let sum =
                UnsafeRawPointer(source + i).loadUnaligned(as: SIMD16<UInt8>.self)
                &+ UnsafeRawPointer(above + i).loadUnaligned(as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(row + i).storeBytes(of: sum, as: SIMD16<UInt8>.self)
            i += 16
        }
        while i < count {
            row[i] = source[i] &+ above[i]
            i += 1
        }
    }

    /// The filters that predict from the pixel to the left (`a`), above (`b`) and above-left (`c`): one
    /// pixel's channels at a time, the left pixel kept in a register rather than read back.
    @inline(__always)
    private static func unfilter(
        _ source: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>,
        rowBytes: Int, pixelBytes: Int,
        _ predict: (_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16>
    ) {
        if pixelBytes == 1 {
            unfilter(
                source, into: row, above: above, rowBytes: rowBytes, pixelBytes: 1,
                load: { SIMD4(Int16($0[0]), 0, 0, 0) }, store: { $0[0] = UInt8(truncatingIfNeeded: $1[0]) }, predict)
        } else {
            unfilter(
                source, into: row, above: above, rowBytes: rowBytes, pixelBytes: pixelBytes,
                load: { SIMD4(truncatingIfNeeded: UnsafeRawPointer($0).loadUnaligned(as: SIMD4<UInt8>.self)) },
                store: {
                    UnsafeMutableRawPointer($0).storeBytes(
                        of: SIMD4<UInt8>(truncatingIfNeeded: $1), as: SIMD4<UInt8>.self)
                },
                predict)
        }
    }

    /// The loop of ``unfilter(_:into:above:rowBytes:pixelBytes:_:)`` for pixels read and written by `load`
    /// and `store` (gray ones a byte at a time, the others four bytes at a time).
    @inline(__always)
    private static func unfilter(
        _ source: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>,
        rowBytes: Int, pixelBytes: Int, load: (UnsafePointer<UInt8>) -> SIMD4<Int16>,
        store: (UnsafeMutablePointer<UInt8>, SIMD4<Int16>) -> Void,
        _ predict: (_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16>
    ) {
        var a = SIMD4<Int16>(), c = SIMD4<Int16>(), i = 0
        while i < rowBytes {
            let b = load(above + i)
            a = (load(source + i) &+ predict(a, b, c)) & 0xFF
            store(row + i, a)
            c = b
            i += pixelBytes
        }
    }

    /// Paeth's predictor: whichever of left, above and above-left is nearest to left + above - above-left
    /// (ties in that order).
    @inline(__always)
    private static func paeth(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16> {
        @inline(__always) func magnitude(_ v: SIMD4<Int16>) -> SIMD4<Int16> { v.replacing(with: 0 &- v, where: v .< 0) }
        let pa = magnitude(b &- c), pb = magnitude(a &- c), pc = magnitude(a &+ b &- c &- c)
        return c.replacing(with: b, where: pb .<= pc).replacing(with: a, where: (pa .<= pb) .& (pa .<= pc))
    }
}
