import BenchmarkSupport
import ImageKernels
import TestSupport
import Testing

/// Paths keep every byte through their string form, and show odd bytes as \xNN.
struct FileSystemPathTests {
    @Test func randomBytesRoundTrip() {
        var generator = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                UInt8.random(in: 1...255, using: &generator)
            }
            #expect(FileSystemPath.bytes(of: FileSystemPath.string(bytes)) == bytes, "\(bytes)")
        }
        // The bytes of a scalar in the escape range are escaped too, so the mapping stays one-to-one.
        let escapeRange = Array("\u{10FF41}".utf8)
        #expect(FileSystemPath.bytes(of: FileSystemPath.string(escapeRange)) == escapeRange)
        #expect(FileSystemPath.string(Array("café/名前.jpg".utf8)) == "café/名前.jpg")
        #expect(FileSystemPath.displayed(FileSystemPath.string(Array("caf".utf8) + [0xE9])) == "caf\\xE9")
        #expect(FileSystemPath.displayed("two\nlines\t\u{1B}[2J.jpg") == "two\\x0Alines\\x09\\x1B[2J.jpg")
    }
}
