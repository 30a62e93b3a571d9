import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

@Suite struct FormatTests {
    /// A 16×8 RGB image with four flat quadrants: red, green / blue, white.
    static let quadrants: PixelBuffer = {
        let (w, h) = (16, 8)
        let colours: [[UInt8]] = [[220, 20, 20], [20, 220, 20], [20, 20, 220], [230, 230, 230]]
        var planes = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let q = (y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)
                for c in 0..<3 { planes[c * w * h + y * w + x] = colours[q][c] }
            }
        }
        return try! PixelBuffer(width: w, height: h, channels: 3, values: planes)
    }()

    /// The quadrant (0 red, 1 green, 2 blue, 3 white) whose colour a pixel is closest to.
    static func quadrant(_ image: PixelBuffer, x: Int, y: Int) -> Int {
        let d = image.descriptor, n = d.planePixelCount
        let rgb = (0..<3).map { Int(image.bytes[$0 * n + y * d.width + x]) }
        let colours = [[220, 20, 20], [20, 220, 20], [20, 20, 220], [230, 230, 230]]
        return colours.indices.min { a, b in
            zip(colours[a], rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
                < zip(colours[b], rgb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
        }!
    }

    /// A JPEG with an APP1 Exif segment holding `orientation`, inserted after SOI.
    static func jpeg(orientation: Int, bigEndian: Bool) throws -> [UInt8] {
        ExifBlock.jpeg(try ImageEncoder.jpeg(quadrants, quality: 100), orientation: orientation, bigEndian: bigEndian)
    }

    /// Displayed corners (top-left, top-right, bottom-left, bottom-right) for each orientation, as
    /// stored quadrants: 0 red (top-left), 1 green (top-right), 2 blue (bottom-left), 3 white.
    static let expectedCorners: [Int: [Int]] = [
        1: [0, 1, 2, 3], 2: [1, 0, 3, 2], 3: [3, 2, 1, 0], 4: [2, 3, 0, 1],
        5: [0, 2, 1, 3], 6: [2, 0, 3, 1], 7: [3, 1, 2, 0], 8: [1, 3, 0, 2],
    ]

    @Test(arguments: 1...8)
    func exifOrientationTurnsTheImageUpright(_ orientation: Int) throws {
        for bigEndian in [false, true] {
            let bytes = try Self.jpeg(orientation: orientation, bigEndian: bigEndian)
            #expect(ExifOrientation(jpeg: bytes)?.rawValue == orientation)
            let image = try ImageDecoder.decode(bytes, path: "orientation-\(orientation).jpg")
            let d = image.descriptor
            #expect((d.width, d.height) == (orientation >= 5 ? (8, 16) : (16, 8)))
            let corners = [(1, 1), (d.width - 2, 1), (1, d.height - 2), (d.width - 2, d.height - 2)]
                .map { Self.quadrant(image, x: $0.0, y: $0.1) }
            #expect(corners == Self.expectedCorners[orientation], "orientation \(orientation)")
            let stored = try ImageDecoder.decode(
                bytes, path: "o.jpg", options: DecodingOptions(appliesOrientation: false))
            #expect(stored.descriptor.width == 16)
        }
    }

    @Test func pngRoundTripsExactly() throws {
        let encoded = try ImageEncoder.png(Self.quadrants)
        #expect(try ImageDecoder.decode(encoded, path: "q.png") == Self.quadrants)
        let gray = try PixelBuffer(width: 3, height: 2, values: [0, 1, 2, 253, 254, 255] as [UInt8])
        #expect(try ImageDecoder.decode(try ImageEncoder.png(gray), path: "g.png") == gray)
    }

    @Test func jpegRoundTripsClosely() throws {
        let decoded = try ImageDecoder.decode(try ImageEncoder.jpeg(Self.quadrants, quality: 100), path: "q.jpg")
        #expect(decoded.descriptor == Self.quadrants.descriptor)
        let worst = zip(decoded.bytes, Self.quadrants.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 40, "JPEG at quality 100 differs by \(worst) levels at most")
    }

    @Test func sixteenBitAndPalettePNGs() throws {
        let wide = PNGBuilder.png(
            width: 3, height: 1, bitDepth: 16, colorType: 0, rows: [[0, 0, 0x80, 0x80, 0xFF, 0xFF]])
        let gray = try ImageDecoder.decode(wide, path: "wide.png")
        #expect(gray.bytes == [0, 128, 255])
        let wideRGB = PNGBuilder.png(
            width: 1, height: 1, bitDepth: 16, colorType: 2, rows: [[0x12, 0x34, 0xAB, 0xCD, 0xFF, 0xFF]])
        #expect(try ImageDecoder.decode(wideRGB, path: "wide-rgb.png").bytes == [0x12, 0xAB, 0xFF])
        let palette: [UInt8] = [10, 20, 30, 200, 100, 50]
        let indexed = PNGBuilder.png(
            width: 2, height: 2, bitDepth: 8, colorType: 3, palette: palette, rows: [[0, 1], [1, 0]])
        let image = try ImageDecoder.decode(indexed, path: "palette.png")
        #expect(image.descriptor.channels == 3)
        #expect(image.bytes == [10, 200, 200, 10, 20, 100, 100, 20, 30, 50, 50, 30])
    }

    @Test func netpbmVariants() throws {
        let p2 = Array("P2\n# a comment\n3 2\n255\n0 1 2\n253 254 255\n".utf8)
        #expect(try ImageDecoder.decode(p2, path: "a.pgm").bytes == [0, 1, 2, 253, 254, 255])
        let p3 = Array("P3 1 2 15 15 0 0 0 15 0".utf8)
        let colour = try ImageDecoder.decode(p3, path: "a.ppm")
        #expect(colour.descriptor.channels == 3)
        #expect(colour.bytes == [255, 0, 0, 15 * 17, 0, 0])
        let p5 = Array("P5 2 1 65535\n".utf8) + [0x80, 0x80, 0xFF, 0xFF]
        #expect(try ImageDecoder.decode(p5, path: "a.pgm").bytes == [128, 255])
        let p6 = Array("P6 1 1 255\n".utf8) + [7, 8, 9]
        #expect(try ImageDecoder.decode(p6, path: "a.ppm").bytes == [7, 8, 9])
    }

    /// PNG and Netpbm files decode reduced as JPEGs are, to the smallest power-of-two size still at least
    /// `minimumLongSide` long, each pixel the rounded mean of its square (cut at the right and bottom edges);
    /// `reduction(of:)` says by how much. Random pixels, odd sizes.
    @Test func pngAndNetpbmAreReducedLikeJPEGs() throws {
        var generator = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        let (width, height) = (2603, TestImages.oddSize(301...1403, using: &generator))
        for channels in [1, 3] {
            let image = TestImages.random(
                ImageDescriptor(width: width, height: height, channels: channels, elementType: .uint8),
                using: &generator)
            let interleaved = (0..<width * height * channels).map {
                image.bytes[$0 % channels * width * height + $0 / channels]
            }
            let netpbm = Array("P\(channels == 1 ? 5 : 6) \(width) \(height) 255\n".utf8) + interleaved
            // 2603 wide is 1302, 651 and 326 wide at 1/2, 1/4 and 1/8 (rounded up): each minimum allows its
            // factor and no more.
            for (minimum, factor) in [(1302, 2), (640, 4), (326, 8)] {
                let options = DecodingOptions(minimumLongSide: minimum)
                for (bytes, name) in [(try ImageEncoder.png(image), "a.png"), (netpbm, "a.pnm")] {
                    #expect(ImageDecoder.reduction(of: bytes, options: options) == factor, "\(name)")
                    let reduced = try ImageDecoder.decode(bytes, path: name, options: options)
                    #expect(
                        TestImages.difference(reduced, Self.boxMean(image, factor), tolerance: 0) == nil,
                        "seed \(generator.seed), \(name), 1/\(factor)")
                }
            }
        }
    }

    /// The plain reference: each output pixel the rounded mean of the input pixels of its square.
    static func boxMean(_ image: PixelBuffer, _ factor: Int) -> PixelBuffer {
        let d = image.descriptor, (width, height) = ((d.width + factor - 1) / factor, (d.height + factor - 1) / factor)
        var out = [UInt8](repeating: 0, count: width * height * d.channels)
        for c in 0..<d.channels {
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0, count = 0
                    for sy in y * factor..<min(y * factor + factor, d.height) {
                        for sx in x * factor..<min(x * factor + factor, d.width) {
                            sum += Int(image.bytes[c * d.planePixelCount + sy * d.width + sx])
                            count += 1
                        }
                    }
                    out[c * width * height + y * width + x] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return try! PixelBuffer(width: width, height: height, channels: d.channels, values: out)
    }
}
