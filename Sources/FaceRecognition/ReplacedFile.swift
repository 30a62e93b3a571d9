import Foundation

/// Writing a file that other processes may be mapping (the galleries' files beside a database): a complete
/// new file renamed over the old one in one step, so that a reader maps either the old file or the new one;
/// new files left by writers killed before they could rename them are removed. And the little-endian
/// reading those files share.
enum ReplacedFile {
    /// Where a writer puts bytes, in order.
    struct Writer {
        let file: Int32
        let path: String

        func write(_ bytes: [UInt8]) throws(RecognitionError) {
            try bytes.withUnsafeBytes { bytes in
                Result { () throws(RecognitionError) in try write(bytes) }
            }.get()
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws(RecognitionError) {
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let written = Foundation.write(file, base + done, bytes.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw .galleryFile(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
                }
                done += written
            }
        }
    }

    /// Replaces the file at `path` with what `body` writes, in one step.
    static func write(_ path: String, _ body: (Writer) throws(RecognitionError) -> Void) throws(RecognitionError) {
        removeAbandonedFiles(of: path)
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard file >= 0 else {
            throw .galleryFile(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
        }
        do throws(RecognitionError) {
            defer { close(file) }
            try body(Writer(file: file, path: path))
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .galleryFile(path: path, reason: "cannot be replaced: \(reason)")
        }
    }

    /// Removes new files for `path` (`<path>.<process id>.<random>.tmp`) left by writers that were killed
    /// before they could rename them: those whose process has ended.
    private static func removeAbandonedFiles(of path: String) {
        let url = URL(fileURLWithPath: path), prefix = url.lastPathComponent + "."
        let folder = url.deletingLastPathComponent().path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let parts = name.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 3, let process = pid_t(parts[0]), kill(process, 0) != 0, errno == ESRCH else {
                continue
            }
            unlink(folder + "/" + name)
        }
    }

    /// The little-endian integer at `offset`.
    static func integer<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, at offset: Int, _: T.Type) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}
