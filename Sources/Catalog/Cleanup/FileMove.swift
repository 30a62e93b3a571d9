import Foundation
import ImageKernels

/// Moving a photo's file from one place to another without ever losing it: a second name (a hard link, which
/// never replaces a file there) and the first removed where both places are on one file system, else a copy to
/// a partial name beside the destination, synced, checked byte for byte against the bytes indexed, given its
/// final name and only then the original removed. The folders are synced after each step that changes them,
/// so that a power cut leaves the file at one place or (for a copy) at both, never at neither. Nothing here
/// replaces a file that is already at the destination.
enum FileMove {
    /// Why a file was not moved.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The name a copy across file systems has until it is checked.
    static func partial(_ destination: String) -> String { destination + ".cbir-partial" }

    /// Moves `source` to `destination` (whose folder exists), checking a copy against `hash` (a
    /// ``ContentHash``) and `size`.
    static func move(_ source: String, to destination: String, size: Int64, hash: String) throws(Failure) {
        switch link(source, destination) {
        case 0:
            guard FileSystemPath.withCString(source, { unlink($0) }) == 0 else {
                throw failure("linked to \(destination) but cannot remove \(source)", errno)
            }
            try syncFolders(of: [source, destination])
        case EXDEV:
            try copy(source, to: partial(destination), size: size, hash: hash)
            guard link(partial(destination), destination) == 0 else {
                throw failure("cannot name the copy \(destination)", errno)
            }
            removeName(partial(destination))
            try syncFolders(of: [destination])
            guard FileSystemPath.withCString(source, { unlink($0) }) == 0 else {
                throw failure("copied to \(destination) but cannot remove \(source)", errno)
            }
            try syncFolders(of: [source])
        case EPERM, EMLINK, ENOTSUP:
            // A file system without hard links: a rename, once nothing is at the destination.
            guard !exists(destination) else { throw Failure(description: "\(destination) is already there") }
            guard
                FileSystemPath.withCString(
                    source, { from in FileSystemPath.withCString(destination) { rename(from, $0) } })
                    == 0
            else { throw failure("cannot move \(source) to \(destination)", errno) }
            try syncFolders(of: [source, destination])
        case let error:
            throw failure(error == EEXIST ? "\(destination) is already there" : "cannot move \(source)", error)
        }
    }

    /// Gives the file at `source` the second name `destination` (never replacing one there): 0, or the error.
    private static func link(_ source: String, _ destination: String) -> Int32 {
        FileSystemPath.withCString(source) { from in FileSystemPath.withCString(destination) { Glibc.link(from, $0) } }
            == 0 ? 0 : errno
    }

    /// Whether two paths name one file (a move stopped between its link and its unlink).
    static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        return FileSystemPath.withCString(first, { lstat($0, &a) }) == 0
            && FileSystemPath.withCString(second, { lstat($0, &b) }) == 0 && a.st_dev == b.st_dev
            && a.st_ino == b.st_ino
    }

    /// Whether anything (a file, a folder, a link) is at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return FileSystemPath.withCString(path) { lstat($0, &status) } == 0
    }

    /// Whether the regular file at `path` holds `size` bytes that hash to `hash`.
    static func holds(_ path: String, size: Int64, hash: String) -> Bool {
        var status = stat()
        return FileSystemPath.withCString(path, { stat($0, &status) }) == 0 && Int64(status.st_size) == size
            && Catalog.contentHash(of: path) == hash
    }

    /// Removes a name, if it is there: one this program made (a `.trashinfo`, a partial copy, a second link to a
    /// file), or a file's first place once its destination holds it whole.
    static func removeName(_ path: String) {
        _ = FileSystemPath.withCString(path) { unlink($0) }
    }

    /// Creates the folders `path` lies in, as far as they are missing.
    static func makeFolders(for path: String) throws(Failure) {
        for folder in FileSystemPath.ancestors(of: path) where !exists(folder) {
            guard FileSystemPath.withCString(folder, { mkdir($0, 0o755) }) == 0 || errno == EEXIST else {
                throw failure("cannot make the folder \(folder)", errno)
            }
        }
    }

    /// Copies the file at `source` to a new file `destination` with its permissions and times, synced, and
    /// checks that it holds the bytes indexed; a copy that fails is removed (it is ours: nothing was there).
    private static func copy(_ source: String, to destination: String, size: Int64, hash: String) throws(Failure) {
        let input: (descriptor: Int32, size: Int)
        do { input = try RegularFile.open(source) } catch { throw Failure(description: "\(error)") }
        defer { close(input.descriptor) }
        var status = stat()
        guard fstat(input.descriptor, &status) == 0 else { throw failure("cannot read \(source)", errno) }
        let output = FileSystemPath.withCString(destination) {
            open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, status.st_mode & 0o7777)
        }
        guard output >= 0 else { throw failure("cannot write \(destination)", errno) }
        var written = false
        defer {
            close(output)
            if !written { removeName(destination) }
        }
        var buffer = [UInt8](repeating: 0, count: IndexedFile.chunkSize), offset: off_t = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { pread(input.descriptor, $0.baseAddress, $0.count, offset) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw failure("cannot read \(source)", errno) }
            if read == 0 { break }
            var done = 0
            while done < read {
                let count = buffer.withUnsafeBytes { write(output, $0.baseAddress.map { $0 + done }, read - done) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw failure("cannot write \(destination)", errno) }
                done += count
            }
            offset += off_t(read)
        }
        var times = [status.st_atim, status.st_mtim]
        guard futimens(output, &times) == 0, fsync(output) == 0 else {
            throw failure("cannot write \(destination)", errno)
        }
        guard holds(destination, size: size, hash: hash) else {
            throw Failure(description: "the copy at \(destination) does not hold the bytes of \(source)")
        }
        written = true
    }

    /// Syncs the folders the paths lie in, so that their new names (or names gone) survive a power cut.
    static func syncFolders(of paths: [String]) throws(Failure) {
        for folder in Set(paths.map(FileSystemPath.folder)) {
            let descriptor = FileSystemPath.withCString(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            guard descriptor >= 0 else { throw failure("cannot sync the folder \(folder)", errno) }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 || errno == EINVAL else { throw failure("cannot sync \(folder)", errno) }
        }
    }

    private static func failure(_ what: String, _ error: Int32) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(error)))")
    }
}
