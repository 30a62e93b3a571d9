import Foundation
import ImageKernels

/// Every regular, non-hidden file under a folder, found by walking it with the system's own calls so that
/// no name is lost (names that are not UTF-8 are kept byte for byte, see `FileSystemPath`), and every
/// folder inside it that could not be listed, and every entry that cannot be a photo (a broken link, a
/// FIFO, a device), with why. Files given as excluded (a database's own, when it lies in the folder) are
/// left out, and so are links to folders (they could make cycles).
struct FolderListing: Sendable {
    /// A file as found on disk.
    struct File: Sendable {
        let path: String
        let size: Int64
        let modified: Double
    }

    /// Files in path order, with absolute, standardised paths.
    let files: [File]
    /// Folders that could not be listed (their files are neither indexed nor taken for deleted), in path order.
    let unreadableFolders: [(path: String, reason: String)]
    /// Entries that are neither files nor folders (broken links, FIFOs, devices, sockets), in path order.
    let unusableEntries: [(path: String, reason: String)]

    /// Lists `folder` without the files `excluded` names; an error only when the folder itself is missing
    /// or cannot be listed.
    init(_ folder: String, excluding excluded: Set<FileIdentity> = []) throws(CatalogError) {
        let root = try Self.root(folder)
        var files: [File] = [], unreadable: [(path: String, reason: String)] = [],
            unusable: [(path: String, reason: String)] = []
        var pending = [root]
        while let current = pending.popLast() {
            guard let entries = Self.entries(of: current) else {
                let reason = String(cString: strerror(errno))
                if current == root { throw .unreadableFolder(path: folder, reason: reason) }
                unreadable.append((current, reason))
                continue
            }
            for name in entries where name.first != UInt8(ascii: ".") {  // hidden, "." and ".." alike
                let path =
                    current == "/" ? "/" + FileSystemPath.string(name) : current + "/" + FileSystemPath.string(name)
                var entry = stat()
                guard FileSystemPath.withCString(path, { lstat($0, &entry) }) == 0 else { continue }
                switch entry.st_mode & S_IFMT {
                case S_IFDIR:
                    if !excluded.contains(FileIdentity(entry)) { pending.append(path) }
                case S_IFLNK:
                    guard FileSystemPath.withCString(path, { stat($0, &entry) }) == 0 else {
                        unusable.append((path, "a link to nothing (\(String(cString: strerror(errno))))"))
                        continue
                    }
                    // Not followed: links to folders could make cycles.
                    guard entry.st_mode & S_IFMT != S_IFDIR else { continue }
                    fallthrough
                default:
                    if let failure = RegularFile.failure(entry) {
                        unusable.append((path, failure.description))
                    } else if !excluded.contains(FileIdentity(entry)) {
                        files.append(File(path: path, size: Int64(entry.st_size), modified: Self.modified(entry)))
                    }
                }
            }
        }
        self.files = files.sorted { $0.path < $1.path }
        unreadableFolders = unreadable.sorted { $0.path < $1.path }
        unusableEntries = unusable.sorted { $0.path < $1.path }
    }

    /// The folder as listed (absolute, standardised); an error where it is not a folder.
    static func root(_ folder: String) throws(CatalogError) -> String {
        let root = Catalog.standardisedPath(folder)
        var status = stat()
        guard FileSystemPath.withCString(root, { stat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .unreadableFolder(path: folder, reason: "no such folder")
        }
        return root
    }

    /// The names in a folder ("." and ".." among them), or nil with `errno` set when it cannot be listed.
    private static func entries(of folder: String) -> [[UInt8]]? {
        guard let directory = FileSystemPath.withCString(folder, { opendir($0) }) else { return nil }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        errno = 0
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) })
        }
        return errno == 0 ? names : nil
    }

    /// A file's modification time as the catalog stores it: seconds since 1970, to the nanosecond.
    static func modified(_ status: stat) -> Double {
        Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
    }
}
