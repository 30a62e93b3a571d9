import Foundation

/// What the process writes on its standard error while a test runs code that is meant to say something there
/// (a fallback to the CPU device, the OpenCL compiler's "1 error generated." for a kernel built broken on purpose):
/// the test reads it, and the console of a passing run stays quiet. One capture at a time: the descriptor is the
/// process's, so whatever other threads write meanwhile is captured too.
public enum StandardError {
    private static let lock = NSLock()

    /// Runs `body` with descriptor 2 sent to a scratch file; returns its result and what was written.
    public static func withCapture<T>(_ body: () throws -> T) throws -> (result: T, text: String) {
        lock.lock()
        defer { lock.unlock() }
        let capture = try Capture()
        let result = Result { try body() }
        let text = capture.finish()
        return (try result.get(), text)
    }

    /// Runs `body` with descriptor 2 sent to a scratch file; returns what was written.
    public static func captured(_ body: () throws -> Void) throws -> String {
        try withCapture(body).text
    }

    /// Descriptor 2 moved to a scratch file until ``finish()`` puts it back.
    private final class Capture {
        let path = NSTemporaryDirectory() + "stderr-" + UUID().uuidString
        let saved: Int32
        let file: Int32

        init() throws {
            file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            guard file >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
            fflush(nil)  // every stream: what is buffered goes where it was meant to
            saved = dup(2)
            dup2(file, 2)
        }

        func finish() -> String {
            fflush(nil)  // every stream: what is buffered goes where it was meant to
            dup2(saved, 2)
            close(saved)
            close(file)
            defer { unlink(path) }
            return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }
    }
}
