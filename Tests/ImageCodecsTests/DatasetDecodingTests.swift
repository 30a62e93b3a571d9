import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// Every image of the shared datasets decodes to the size its own header states.
@Suite struct DatasetDecodingTests {
    static let orl = SharedData.root + "/orl"
    static let photos = SharedData.root + "/wild-photos"

    static func files(under folder: String, extensions: Set<String>) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if extensions.contains((name as NSString).pathExtension.lowercased()) { found.append(folder + "/" + name) }
        }
        return found.sorted()
    }

    @Test(.needs(.orl)) func everyORLFaceDecodes() throws {
        let faces = Self.files(under: Self.orl, extensions: ["pgm"])
        #expect(faces.count == 400)
        for path in faces {
            let image = try ImageDecoder.decode(contentsOf: path)
            #expect(image.descriptor == ImageDescriptor(width: 92, height: 112, elementType: .uint8), "\(path)")
        }
    }

    @Test(.needs(.wildPhotos)) func everyWildPhotoDecodesUpright() throws {
        let photos = Self.files(under: Self.photos, extensions: ["jpg", "jpeg", "png"])
        #expect(photos.count >= 20)
        for path in photos {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let stored = try #require(HeaderSize.of(bytes), "\(path) has no readable size in its header")
            let turned = (ExifOrientation(jpeg: bytes)?.rawValue ?? 1) >= 5
            let image = try ImageDecoder.decode(contentsOf: path)
            #expect(image.descriptor.width == (turned ? stored.height : stored.width), "\(path)")
            #expect(image.descriptor.height == (turned ? stored.width : stored.height), "\(path)")
            #expect([3, 4].contains(image.descriptor.channels), "\(path)")
        }
    }

    @Test(.needs(.wildPhotos)) func rgbaPNGKeepsItsAlpha() throws {
        let image = try ImageDecoder.decode(contentsOf: Self.photos + "/misc/32bit.png")
        #expect(image.descriptor == ImageDescriptor(width: 626, height: 1200, channels: 4, elementType: .uint8))
        let gray = try ImageDecoder.decode(
            contentsOf: Self.photos + "/misc/32bit.png", options: DecodingOptions(grayscale: true))
        #expect(gray.descriptor.channels == 1)
    }

    @Test(.needs(.wildPhotos)) func dctScaledDecodeStopsAtTheRequestedSize() throws {
        let path = Self.photos + "/misc/obama-1080p.jpg"
        let full = try ImageDecoder.decode(contentsOf: path)
        #expect(full.descriptor.width == 1920 && full.descriptor.height == 1080)
        // 1920 / 2 = 960 is the smallest power-of-two reduction still ≥ 640 (1/4 would give 480).
        let scaled = try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(minimumLongSide: 640))
        #expect(scaled.descriptor.width == 960 && scaled.descriptor.height == 540)
        let quarter = try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(minimumLongSide: 480))
        #expect(quarter.descriptor.width == 480 && quarter.descriptor.height == 270)
        let gray = try ImageDecoder.decode(
            contentsOf: path, options: DecodingOptions(grayscale: true, minimumLongSide: 200))
        #expect(gray.descriptor == ImageDescriptor(width: 240, height: 135, elementType: .uint8))
        // A request above the full size decodes at full size.
        let larger = try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(minimumLongSide: 4000))
        #expect(larger.descriptor.width == 1920)
    }
}

/// Image sizes read straight from file headers, independently of the decoders.
enum HeaderSize {
    static func of(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            return (be(bytes, 16, 4), be(bytes, 20, 4))
        }
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (be(bytes, i + 7, 2), be(bytes, i + 5, 2))
            }
            i += 2 + be(bytes, i + 2, 2)
        }
        return nil
    }

    private static func be(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
