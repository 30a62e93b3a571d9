import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// The PNGs that libpng would hand over unchanged are read without it (PlainPNG): every row filter
/// undone to the byte, the same pixels as libpng gives on real photos, and anything else (colour chunks,
/// damage) still left to libpng.
@Suite struct PlainPNGTests {
    /// 8-bit colour types and their bytes a pixel: gray, RGB, RGBA.
    static let colourTypes: [(type: UInt8, channels: Int)] = [(0, 1), (2, 3), (6, 4)]

    /// A random image stored with each filter type on every row, and with the types mixed row by row,
    /// decodes to its pixels; odd sizes, one-pixel rows and columns included (fresh seed each run).
    @Test(arguments: [[0], [1], [2], [3], [4], [4, 1, 0, 3, 2, 4]] as [[UInt8]])
    func everyFilterDecodesToThePixels(_ filters: [UInt8]) throws {
        var generator = SeededGenerator()
        for (type, channels) in Self.colourTypes {
            for (width, height) in [(1, 1), (1, 7), (9, 1), (TestImages.oddSize(3...41, using: &generator), 6)] {
                let interleaved = (0..<height).map { _ in
                    (0..<width * channels).map { _ in UInt8.random(in: 0...255, using: &generator) }
                }
                let file = PNGBuilder.png(
                    width: width, height: height, bitDepth: 8, colorType: type, rows: interleaved, filters: filters,
                    pixelBytes: channels)
                let decoded = try ImageDecoder.decode(file, path: "filters.png")
                let planar = (0..<channels).flatMap { c in
                    interleaved.flatMap { row in stride(from: c, to: row.count, by: channels).map { row[$0] } }
                }
                #expect(
                    decoded == (try PixelBuffer(width: width, height: height, channels: channels, values: planar)),
                    "colour type \(type), \(width)×\(height), filters \(filters), seed \(generator.seed)")
            }
        }
    }

    /// Real photos written by libpng (its own adaptive choice of filters) and the dataset's PNGs decode to
    /// the pixels libpng gives: the same file with a gAMA chunk of sRGB's gamma, which sends it to libpng
    /// and changes nothing there, is the reference. Whole and reduced, as indexing decodes.
    @Test(.needs(.wildPhotos)) func realPhotosDecodeAsLibpngDecodesThem() throws {
        let photos = DatasetDecodingTests.files(under: DatasetDecodingTests.photos, extensions: ["jpg", "png"])
        let pngs =
            try photos.prefix(6).map { path in
                try ImageEncoder.png(
                    try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(minimumLongSide: 900)))
            } + photos.filter { $0.hasSuffix(".png") }.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))) }
        #expect(pngs.count >= 8)
        for (index, png) in pngs.enumerated() {
            let viaLibpng = PNGBuilder.withSRGBGamma(png)
            for options in [DecodingOptions(), DecodingOptions(minimumLongSide: 300)] {
                let plain = try ImageDecoder.decode(png, path: "\(index).png", options: options)
                #expect(
                    plain == (try ImageDecoder.decode(viaLibpng, path: "\(index).png", options: options)), "\(index)")
            }
        }
    }

    /// A chunk that changes pixels in libpng is obeyed, not skipped: tRNS makes an RGB file's colour
    /// transparent, as an alpha channel.
    @Test func transparencyChunkIsLeftToLibpng() throws {
        let rows: [[UInt8]] = [[10, 20, 30, 40, 50, 60]]
        let file = PNGBuilder.png(width: 2, height: 1, bitDepth: 8, colorType: 2, rows: rows)
        let transparent = PNGBuilder.inserting(PNGBuilder.chunk("tRNS", [0, 10, 0, 20, 0, 30]), into: file)
        #expect(try ImageDecoder.decode(file, path: "opaque.png").descriptor.channels == 3)
        let decoded = try ImageDecoder.decode(transparent, path: "transparent.png")
        #expect(decoded.descriptor.channels == 4)
        #expect(Array(decoded.bytes.suffix(2)) == [0, 255])
    }

    /// Damage the fast reader finds (an unknown filter type, a changed byte under a CRC, image data cut
    /// short, a chunk type that is not four letters) reaches libpng, whose error names the file, as before.
    @Test func damageIsReportedByLibpng() throws {
        let rows: [[UInt8]] = [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]]
        let unknownFilter = PNGBuilder.png(width: 2, height: 2, bitDepth: 8, colorType: 2, rows: rows, filters: [7])
        var changed = PNGBuilder.png(width: 2, height: 2, bitDepth: 8, colorType: 2, rows: rows)
        changed[changed.count - 20] ^= 0x40  // inside the image data
        let short = PNGBuilder.png(width: 2, height: 3, bitDepth: 8, colorType: 2, rows: rows)
        let badlyNamed = PNGBuilder.inserting(
            PNGBuilder.chunk("t1XT", []),
            into: PNGBuilder.png(width: 2, height: 2, bitDepth: 8, colorType: 2, rows: rows))
        let files = [
            ("filter.png", unknownFilter), ("crc.png", changed), ("short.png", short), ("name.png", badlyNamed),
        ]
        for (name, file) in files {
            let error = #expect(throws: ImageCodecError.self, "\(name)") { try ImageDecoder.decode(file, path: name) }
            #expect(error?.path == name)
        }
    }
}
