import BenchmarkSupport
import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Bad files give their typed error, naming the file, without crashing or allocating for absurd sizes.
@Suite struct BadInputTests {
    static let photo = SharedData.root + "/wild-photos/test/obama1.jpg"

    static func decodeError(_ bytes: [UInt8], _ name: String) -> ImageCodecError? {
        do {
            _ = try ImageDecoder.decode(bytes, path: name)
            return nil
        } catch {
            return error
        }
    }

    @Test func zeroByteFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID()).jpg").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ImageCodecError.empty(path: path)) { try ImageDecoder.decode(contentsOf: path) }
    }

    @Test func missingFileAndFolder() {
        #expect(throws: ImageCodecError.unreadable(path: "/nonexistent/x.png", reason: "no such folder: /nonexistent"))
        {
            try ImageDecoder.decode(contentsOf: "/nonexistent/x.png")
        }
        #expect(throws: ImageCodecError.unreadable(path: "/tmp", reason: "is a folder")) {
            try ImageDecoder.decode(contentsOf: "/tmp")
        }
    }

    @Test func wrongMagic() {
        #expect(
            Self.decodeError(Array("hello, this is text".utf8), "notes.jpg") == .unrecognizedFormat(path: "notes.jpg"))
    }

    @Test(.needs(.wildPhotos)) func truncatedJPEG() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.photo)))
        for fraction in [2, 3, 10] {
            let error = Self.decodeError(Array(bytes.prefix(bytes.count / fraction)), "cut.jpg")
            guard case .truncated(let path, _) = error else {
                Issue.record("1/\(fraction) of a JPEG gave \(String(describing: error))")
                continue
            }
            #expect(path == "cut.jpg")
        }
    }

    @Test func truncatedPNGAndPNM() throws {
        let png = PNGBuilder.png(
            width: 64, height: 64, bitDepth: 8, colorType: 0,
            rows: Array(repeating: [UInt8](repeating: 9, count: 64), count: 64))
        let cut = Self.decodeError(Array(png.prefix(png.count / 2)), "cut.png")
        #expect(cut?.path == "cut.png")
        #expect({ if case .truncated = cut { true } else if case .corrupt = cut { true } else { false } }())
        let pgm = Array("P5 4 4 255\n".utf8) + [1, 2, 3]
        guard case .truncated(let path, _)? = Self.decodeError(pgm, "cut.pgm") else {
            Issue.record("a short P5 was not reported as truncated")
            return
        }
        #expect(path == "cut.pgm")
    }

    @Test(.needs(.wildPhotos)) func hugeHeadersAreRefusedBeforeAllocation() throws {
        let pgm = Array("P5 200000 100000 255\n".utf8) + [0]
        #expect(
            Self.decodeError(pgm, "huge.pgm")
                == .tooLarge(path: "huge.pgm", width: 200000, height: 100000, limit: 100_000_000))
        let png = PNGBuilder.png(width: 60000, height: 60000, bitDepth: 8, colorType: 2, rows: [])
        #expect(
            Self.decodeError(png, "huge.png")
                == .tooLarge(path: "huge.png", width: 60000, height: 60000, limit: 100_000_000))
        // A real JPEG whose frame header is rewritten to claim 60000×60000.
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.photo)))
        var i = 2
        while jpeg[i] == 0xFF, !(0xC0...0xC2).contains(jpeg[i + 1]) {
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        jpeg.replaceSubrange(i + 5..<i + 9, with: [0xEA, 0x60, 0xEA, 0x60])
        #expect(
            Self.decodeError(jpeg, "huge.jpg")
                == .tooLarge(path: "huge.jpg", width: 60000, height: 60000, limit: 100_000_000))
        // The limit is configurable.
        #expect(throws: ImageCodecError.tooLarge(path: Self.photo, width: 1480, height: 832, limit: 1000)) {
            try ImageDecoder.decode(contentsOf: Self.photo, options: .init(maximumPixels: 1000))
        }
    }

    /// A file within the pixel limit whose decode would take more memory than decoders may hold at once is
    /// refused before anything is allocated: a 10000 × 10000 16-bit RGBA PNG of a few bytes would take
    /// 1.6 GB (two bytes a sample, one more once narrowed, and the planes).
    @Test func decodesTooLargeForTheMemoryBudgetAreRefused() throws {
        let png = PNGBuilder.png(width: 10_000, height: 10_000, bitDepth: 16, colorType: 6, rows: [])
        #expect(
            Self.decodeError(png, "deep.png")
                == .tooLargeToDecode(
                    path: "deep.png", bytes: 1_600_000_000,
                    limit: DecodingMemory.shared.capacity))
    }

    /// Decodes reserve their memory from one budget: however many run at once, together they never hold
    /// more than its capacity, and all of them finish.
    @Test func decodesTakeTurnsWithinTheBudget() throws {
        let budget = DecodingMemory(capacity: 100)
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var now = 0, most = 0, done = 0
        }
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            _ = try? budget.reserving(40, for: "p") { () throws(ImageCodecError) in
                tally.lock.withLock {
                    tally.now += 40
                    tally.most = max(tally.most, tally.now)
                }
                usleep(5_000)
                tally.lock.withLock {
                    tally.now -= 40
                    tally.done += 1
                }
            }
        }
        #expect(tally.done == 12 && tally.most <= 100 && tally.most >= 40)
        #expect(throws: ImageCodecError.tooLargeToDecode(path: "p", bytes: 101, limit: 100)) {
            try budget.reserving(101, for: "p") { () throws(ImageCodecError) in }
        }
    }

    /// Found by fuzzing (scripts/fuzz.sh): a Netpbm header within the pixel limit but with almost no data
    /// allocated the whole image before finding the data missing. Now the data's length is checked first.
    @Test func netpbmClaimingMoreThanTheFileHolds() throws {
        #expect(
            Self.decodeError(Array("P5 9000 9000 255\n".utf8) + [1, 2, 3], "short.pgm")
                == .truncated(path: "short.pgm", detail: "3 bytes of pixel data, at least 81000000 needed"))
        #expect(
            Self.decodeError(Array("P3 9000 9000 255\n1 2 3".utf8), "short.ppm")
                == .truncated(path: "short.ppm", detail: "6 bytes of pixel data, at least 486000000 needed"))
        // The tightest text files still decode: one separator and one digit a sample.
        #expect(try ImageDecoder.decode(Array("P2 3 1 9\n1 2 3".utf8), path: "tight.pgm").bytes == [28, 57, 85])
        #expect(try ImageDecoder.decode(Array("P3 1 1 9 9 0 9".utf8), path: "tight.ppm").bytes == [255, 0, 255])
    }

    /// Found by fuzzing: a PNG chunk whose length claimed about 2 GB (the bytes of another chunk's name) made
    /// libpng allocate that much before finding the file short. Now lengths are checked against the file first.
    @Test func pngChunkClaimingMoreThanTheFileHolds() throws {
        let png = PNGBuilder.png(width: 2, height: 2, bitDepth: 8, colorType: 0, rows: [[1, 2], [3, 4]])
        let afterHeader = 8 + 25  // the signature and the IHDR chunk
        let suggestedPalette = PNGBuilder.chunk("sPLT", Array("palette".utf8) + [0, 8])
        var file = PNGBuilder.inserting(suggestedPalette, into: png)
        #expect(try ImageDecoder.decode(file, path: "palette.png").bytes == [1, 2, 3, 4])
        file.replaceSubrange(afterHeader..<afterHeader + 4, with: Array("tEXt".utf8))
        #expect(
            Self.decodeError(file, "claims.png")
                == .truncated(
                    path: "claims.png",
                    detail: "chunk sPLT claims 1950701684 bytes, \(file.count - afterHeader - 12) are left"))
    }

    @Test func corruptJPEGData() {
        let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array(repeating: 0x41, count: 200)
        let error = Self.decodeError(garbage, "garbage.jpg")
        #expect(error?.path == "garbage.jpg")
        #expect(error != nil)
    }
}
