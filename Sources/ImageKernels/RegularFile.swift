import Foundation

/// Opens and reads whole regular files: photos, models, weight maps, label files. The path is checked
/// before it is opened, so a FIFO, a device or a folder given as a file is refused at once instead of
/// blocking in `open` or reading without end. Failures say which part of the path is wrong: a folder that
/// is missing, cannot be entered or is a file.
public enum RegularFile {
    /// Why a file could not be read.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No file of that name in a folder that exists.
        case missing
        /// A folder on the way is missing (named).
        case missingFolder(String)
        /// What should be a folder on the way is a file (named).
        case notAFolder(String)
        /// A folder on the way may not be entered (named).
        case closedFolder(String)
        /// The file itself may not be read.
        case permissionDenied
        /// Not a regular file: a folder, a FIFO, a device or a socket (named).
        case notRegular(String)
        /// Larger than the caller's limit.
        case tooLarge(size: Int, limit: Int)
        /// Any other system error, or the file changing while it is read.
        case failed(String)

        public var description: String {
            switch self {
            case .missing: "no such file"
            case .missingFolder(let folder): "no such folder: \(folder)"
            case .notAFolder(let file): "\(file) is a file, not a folder"
            case .closedFolder(let folder): "permission denied: the folder \(folder) cannot be entered"
            case .permissionDenied: "permission denied"
            case .notRegular(let kind): kind == "a folder" ? "is a folder" : "not a regular file but \(kind)"
            case .tooLarge(let size, let limit): "\(size) bytes exceed the limit of \(limit)"
            case .failed(let reason): reason
            }
        }
    }

    /// A descriptor of the regular file at `path`, open for reading, and its size; the caller closes it.
    public static func open(_ path: String) throws(Failure) -> (descriptor: Int32, size: Int) {
        var status = stat()
        guard FileSystemPath.withCString(path, { stat($0, &status) }) == 0 else { throw failure(errno, path) }
        if let failure = failure(status) { throw failure }
        // Not blocking: had the file become a FIFO since, opening it would wait for a writer.
        let descriptor = FileSystemPath.withCString(path) { Foundation.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { throw failure(errno, path) }
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .failed(reason)
        }
        if let failure = failure(status) {
            close(descriptor)
            throw failure
        }
        return (descriptor, Int(status.st_size))
    }

    /// The bytes of the regular file at `path`, refused when over `limit` bytes.
    public static func contents(of path: String, limit: Int = .max) throws(Failure) -> [UInt8] {
        let (descriptor, size) = try open(path)
        defer { close(descriptor) }
        guard size <= limit else { throw .tooLarge(size: size, limit: limit) }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes {
                read(descriptor, $0.baseAddress.map { $0 + filled }, size - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw .failed(count < 0 ? String(cString: strerror(errno)) : "the file shrank while being read")
            }
            filled += count
        }
        return bytes
    }

    /// Why a file of this status cannot be read as a regular file; nil when it is one.
    public static func failure(_ status: stat) -> Failure? {
        switch status.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: .notRegular("a folder")
        case S_IFIFO: .notRegular("a FIFO")
        case S_IFSOCK: .notRegular("a socket")
        case S_IFCHR, S_IFBLK: .notRegular("a device")
        default: .notRegular("of an unknown kind")
        }
    }

    /// What `error` (from stat or open) means for `path`: which folder on the way is missing, cannot be
    /// entered, or is a file.
    private static func failure(_ error: Int32, _ path: String) -> Failure {
        let folders = FileSystemPath.ancestors(of: path)
        switch error {
        case ENOENT:
            return folders.first { !exists($0) }.map(Failure.missingFolder) ?? .missing
        case ENOTDIR:
            return .notAFolder(folders.first { exists($0) && !isFolder($0) } ?? path)
        case EACCES:
            return folders.first { isFolder($0) && access($0, X_OK) != 0 }.map(Failure.closedFolder)
                ?? .permissionDenied
        default:
            return .failed(String(cString: strerror(error)))
        }
    }

    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return FileSystemPath.withCString(path) { lstat($0, &status) } == 0
    }

    private static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return FileSystemPath.withCString(path) { stat($0, &status) } == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
