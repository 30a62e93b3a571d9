import BenchmarkSupport
import Foundation
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

    /// A path's folder is what dirname(3) says, on random paths of short names, dots and slashes, relative
    /// and absolute (Foundation's `deletingLastPathComponent` stopped the process on "x" and "é"); the
    /// ancestors of a path are its folder's, outermost first.
    @Test func foldersAreWhatDirnameSays() {
        var generator = SeededGenerator()
        let pieces = ["a", "x", "é", "名", ".", "..", "/", "/", "ab", "abc"]
        for _ in 0..<3000 {
            let path = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                pieces.randomElement(using: &generator) ?? ""
            }.joined()
            // POSIX leaves a path that starts with exactly two slashes to the system; glibc keeps both.
            guard !(path.hasPrefix("//") && !path.hasPrefix("///")) else { continue }
            var copy = Array(path.utf8CString)
            let expected = copy.withUnsafeMutableBufferPointer { String(cString: dirname($0.baseAddress)) }
            #expect(FileSystemPath.folder(of: path) == expected, "seed \(generator.seed): \(path.debugDescription)")
            let ancestors = FileSystemPath.ancestors(of: path)
            #expect(ancestors.last.map { $0 == expected } ?? ["/", "."].contains(expected), "\(path.debugDescription)")
            #expect(!ancestors.contains("/") && !ancestors.contains("."))
        }
        #expect(FileSystemPath.ancestors(of: "/a/b/c") == ["/a", "/a/b"])
        #expect(FileSystemPath.ancestors(of: "x/none.jpg") == ["x"])
        #expect(FileSystemPath.ancestors(of: "é") == [])
    }
}
