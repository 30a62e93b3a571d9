import Foundation
import ImageKernels

/// The files one database consists of: SQLite's own (the database, its write-ahead log and shared-memory
/// index), the writers' lock, the gallery caches and the thumbnails.
///
/// Only SQLite ever opens SQLite's files. SQLite's locks are POSIX advisory locks, which belong to a
/// process and an inode: when the process closes *any* descriptor of the database file, every lock it
/// holds on that file is gone (SQLite's "How To Corrupt An SQLite Database File", 2.2). A writer that lost
/// its shared lock that way looks absent to other processes, and the next one to close its connection
/// takes itself for the last: it checkpoints and deletes the write-ahead log under the running writer, and
/// the database is damaged. So nothing here reads these files as photos, and writers take turns opening a
/// database on a lock file of their own.
public struct DatabaseFiles: Sendable {
    /// The database file.
    public let path: String

    /// The file writers lock while they create, upgrade and check the database.
    var lock: String { path + "-lock" }

    /// The database's descriptors laid out for search (``Gallery/write(to:tag:)``), a cache (`GalleryCache`).
    var gallery: String { path + "-faces" }

    /// The faces' embeddings and the photos' augmented prints (`SimilarPrints`) laid out for search
    /// (``EmbeddingGallery/write(to:tag:)``), and the neighbour lists the augmented prints were made from
    /// (`PrintNeighbourhoodsFile`), caches too.
    var embeddings: String { path + "-embeddings" }
    var similarPrints: String { path + "-similar-prints" }
    var printNeighbours: String { path + "-print-neighbours" }

    /// The caches beside the database, made again from it when missing.
    var caches: [String] { [gallery, embeddings, similarPrints, printNeighbours] }

    /// The folder of the photos' and faces' thumbnails the web page shows, made again when missing.
    public var thumbnails: String { path + "-thumbnails" }

    /// Every file of the database, present or not.
    var all: [String] { [path, path + "-wal", path + "-shm", path + "-journal", lock] + caches }

    /// The identities on disk now of the files and the thumbnails' folder (device and inode, so that other
    /// spellings and links to them are recognised).
    func identities() -> Set<FileIdentity> {
        Set((all + [thumbnails]).compactMap(FileIdentity.init(path:)))
    }

    /// Whether `file` is one of the database's files, by identity.
    func contains(_ file: String) -> Bool {
        FileIdentity(path: file).map(identities().contains) ?? false
    }

    /// Whether another process has the database open: holds one of SQLite's locks on the file or on its
    /// shared-memory index (as /proc/locks lists them; true where that cannot be read).
    func isOpenElsewhere() -> Bool {
        guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return true }
        let inodes = Set([path, path + "-shm"].compactMap { FileIdentity(path: $0)?.inode })
        return locks.split(separator: "\n").contains { line in
            // "1: POSIX  ADVISORY  READ 4913 fe:00:16220357 1073741826 1073742335"
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "POSIX", let pid = Int32(fields[4]), pid != getpid(),
                let inode = fields[5].split(separator: ":").last.flatMap({ UInt64($0) })
            else { return false }
            return inodes.contains(inode)
        }
    }

    /// Runs `body` (a writer's open: WAL mode, migrations, check) while holding an exclusive `flock` on the
    /// lock file (made if missing), so that writers opening one database at once take turns: GRDB reads
    /// which migrations are applied before running each in its own transaction, so two would both run the
    /// first one ("table images already exists"), and SQLite answers a second connection busy, without
    /// waiting, while a new file turns to WAL mode. The lock is a file of its own because closing a
    /// descriptor of the database file would drop SQLite's locks on it.
    func whileLocked<Result>(_ body: () throws -> Result) throws -> Result {
        var descriptor = FileSystemPath.withCString(lock) { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        if descriptor < 0 && (errno == EACCES || errno == EROFS) {
            // flock works on a read-only descriptor too.
            descriptor = FileSystemPath.withCString(lock) { open($0, O_RDONLY | O_CLOEXEC) }
        }
        guard descriptor >= 0 else {
            throw CatalogError.storage(
                path: path, reason: "cannot open the lock file \(lock): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw CatalogError.storage(
                    path: path, reason: "cannot lock \(lock): \(String(cString: strerror(errno)))")
            }
        }
        return try body()
    }
}

/// A file's device and inode: the same for every path and link that names it.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file `path` names (links followed), nil when there is none.
    init?(path: String) {
        var status = stat()
        guard FileSystemPath.withCString(path, { stat($0, &status) }) == 0 else { return nil }
        self.init(status)
    }

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
