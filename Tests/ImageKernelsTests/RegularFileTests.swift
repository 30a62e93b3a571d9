import BenchmarkSupport
import Foundation
import ImageKernels
import Testing

/// Files that are not regular files are refused without blocking, and each failure says which part of
/// the path is wrong.
@Suite struct RegularFileTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "regular-file-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// The failure reading `path` gives, from a thread of its own: nil when it read the file, or when it
    /// had not returned after 5 s (it blocked, as `open` does on a FIFO without a writer).
    func failure(_ path: String, limit: Int = .max) -> RegularFile.Failure?? {
        final class Outcome: @unchecked Sendable { var failure: RegularFile.Failure?? }
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { () throws(RegularFile.Failure) in try RegularFile.contents(of: path, limit: limit) }
            if case .failure(let failure) = result {
                outcome.failure = .some(failure)
            } else {
                outcome.failure = .some(nil)
            }
            done.signal()
        }
        return done.wait(timeout: .now() + 5) == .success ? outcome.failure : nil
    }

    /// Reading a missing file by a short relative or absolute name says which folder is missing, and never
    /// stops the process (a one-character folder name did, through Foundation's `deletingLastPathComponent`).
    @Test func missingFilesUnderShortNamesAreNamed() {
        #expect(failure("q/none.jpg") == .some(.missingFolder("q")))
        #expect(failure("é/none.jpg") == .some(.missingFolder("é")))
        #expect(failure("q") == .some(.missing))
        #expect(failure("q/") == .some(.missingFolder("q")) || failure("q/") == .some(.missing))
        var generator = SeededGenerator()
        let pieces = ["q", "é", ".", "..", "/", "zz", "name.jpg"]
        for _ in 0..<500 {
            let path = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                pieces.randomElement(using: &generator) ?? ""
            }.joined()
            #expect(failure(path) != nil, "seed \(generator.seed): reading \(path.debugDescription) blocked")
        }
    }

    @Test func notRegularFilesAreRefusedAtOnce() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pipe.jpg"
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(failure(fifo) == .some(.notRegular("a FIFO")), "a FIFO blocked or was read")
        #expect(failure("/dev/zero") == .some(.notRegular("a device")))
        #expect(failure(folder) == .some(.notRegular("a folder")))
        #expect(RegularFile.Failure.notRegular("a folder").description == "is a folder")
    }

    @Test func failuresNameWhatIsWrong() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/file"
        try Data("twelve bytes".utf8).write(to: URL(fileURLWithPath: file))
        #expect(failure(file) == .some(nil))
        #expect(try RegularFile.contents(of: file) == Array("twelve bytes".utf8))
        #expect(failure(file, limit: 11) == .some(.tooLarge(size: 12, limit: 11)))
        #expect(failure(folder + "/absent") == .some(.missing))
        #expect(failure(folder + "/gone/deeper/x") == .some(.missingFolder(folder + "/gone")))
        #expect(failure(file + "/x") == .some(.notAFolder(file)))
        let link = folder + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(failure(link) == .some(nil), "links are followed")
    }
}
