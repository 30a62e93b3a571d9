import Foundation

/// Builds PNG files byte by byte (stored, uncompressed deflate), so tests can make the kinds of PNG
/// that no encoder here writes: 16-bit, palette, every row filter, and headers with absurd sizes.
public enum PNGBuilder {
    /// A PNG with the given header fields and raw scanlines, each filtered by the filter type `filters`
    /// gives its row (cycling through it; type 0, none, by default) as PNG's specification defines them,
    /// with `pixelBytes` bytes a pixel.
    public static func png(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt8,
        palette: [UInt8]? = nil, rows: [[UInt8]], filters: [UInt8] = [0], pixelBytes: Int = 1
    ) -> [UInt8] {
        var ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        ihdr += [bitDepth, colorType, 0, 0, 0]
        var raw: [UInt8] = []
        for (y, row) in rows.enumerated() {
            let filter = filters[y % filters.count]
            raw += [filter] + filtered(row, above: y > 0 ? rows[y - 1] : nil, filter: filter, pixelBytes: pixelBytes)
        }
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", ihdr)
        if let palette { file += chunk("PLTE", palette) }
        file += chunk("IDAT", zlibStored(raw))
        file += chunk("IEND", [])
        return file
    }

    /// A row as PNG's filter `filter` stores it: each byte less its prediction from the byte a pixel to the
    /// left (`a`), the one above (`b`) and the one above and to the left (`c`), zero outside the image.
    public static func filtered(_ row: [UInt8], above: [UInt8]?, filter: UInt8, pixelBytes: Int) -> [UInt8] {
        row.indices.map { i in
            let a = i >= pixelBytes ? Int(row[i - pixelBytes]) : 0, b = above.map { Int($0[i]) } ?? 0
            let c = i >= pixelBytes ? above.map { Int($0[i - pixelBytes]) } ?? 0 : 0
            let prediction: Int
            switch filter {
            case 1: prediction = a
            case 2: prediction = b
            case 3: prediction = (a + b) / 2
            case 4:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                prediction = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            default: prediction = 0
            }
            return UInt8(truncatingIfNeeded: Int(row[i]) - prediction)
        }
    }

    /// `png` with a chunk inserted after its header (IHDR, first at byte 8, 25 bytes long).
    public static func inserting(_ chunk: [UInt8], into png: [UInt8]) -> [UInt8] {
        Array(png.prefix(33)) + chunk + Array(png.dropFirst(33))
    }

    /// `png` with a gAMA chunk of sRGB's gamma (1 / 2.2): libpng gives the same pixels for it, while
    /// ImageCodecs' own reader (PlainPNG) leaves files with gamma chunks to libpng, so it is how tests and
    /// benchmarks compare the two readers on one file.
    public static func withSRGBGamma(_ png: [UInt8]) -> [UInt8] {
        inserting(chunk("gAMA", bigEndian(45455)), into: png)
    }

    /// A chunk with its length and CRC.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            out += [
                final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF),
            ]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
