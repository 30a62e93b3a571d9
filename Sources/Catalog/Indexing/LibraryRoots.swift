import Foundation
import GRDB
import ImageKernels

/// The folders where this machine keeps the catalog's named libraries, and how a photo's path is stored with
/// them. A file inside a library's root is stored as `library:/path/inside/the/root`, the same on every machine
/// that shares the catalog wherever each mounts the library (`/mnt/nas/photos` here, `/Volumes/photos` there),
/// so that each sees one photo once; any other file by its absolute path. Each machine records its own roots
/// (`library_roots`, one row a library and machine).
public struct LibraryRoots: Sendable, Equatable {
    /// A library's root on this machine: an absolute, standardised folder.
    public struct Root: Sendable, Equatable, Codable {
        public let library: String
        public let folder: String
    }

    /// This machine's roots, the deepest folder first (so that a file is matched to the innermost root).
    public let roots: [Root]

    init(_ roots: [Root]) {
        self.roots = roots.sorted { ($0.folder.count, $0.library) > ($1.folder.count, $1.library) }
    }

    static let table = "library_roots"

    /// Makes the table of every machine's roots, a row a library and machine.
    static func createTable(_ db: Database) throws {
        try db.create(table: table) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("library", .text).notNull()
            t.column("machine", .text).notNull()
            t.column("folder", .text).notNull()
            t.uniqueKey(["library", "machine"])
        }
    }

    /// The name this machine's roots are recorded under: `FACESEARCH_MACHINE` where it is set (tests play several
    /// machines with it), else the host name.
    public static var machine: String {
        if let name = ProcessInfo.processInfo.environment["FACESEARCH_MACHINE"], !name.isEmpty { return name }
        return ProcessInfo.processInfo.hostName
    }

    /// How a file's absolute, standardised path is stored: inside the innermost library root it lies in, or as it is.
    func stored(_ path: String) -> String {
        guard let root = roots.first(where: { path == $0.folder || path.hasPrefix($0.folder + "/") }) else {
            return path
        }
        return root.library + ":" + (path == root.folder ? "/" : String(path.dropFirst(root.folder.count)))
    }

    /// Where a stored path is on this machine: inside its library's root here, or, for a library this machine
    /// has no root for, the stored path itself (a file no command here can open: ``IndexedFile`` says why).
    func local(_ stored: String) -> String {
        guard let (library, inside) = Self.split(stored), let root = roots.first(where: { $0.library == library })
        else { return stored }
        return inside == "/" ? root.folder : root.folder + inside
    }

    /// A stored library path's library and the path inside its root (starting with "/"); nil for an absolute path.
    static func split(_ stored: String) -> (library: String, inside: String)? {
        guard !stored.hasPrefix("/"), let colon = stored.firstIndex(of: ":"),
            stored[stored.index(after: colon)...].hasPrefix("/")
        else { return nil }
        return (String(stored[..<colon]), String(stored[stored.index(after: colon)...]))
    }

    /// Checks a library's name: one to 100 characters, none of them "/", ":" or a control character (a stored
    /// path is the name, a colon and the path inside the root).
    static func checkName(_ name: String) throws(CatalogError) {
        guard (1...100).contains(name.count),
            !name.unicodeScalars.contains(where: {
                $0 == "/" || $0 == ":" || CharacterSet.controlCharacters.contains($0)
            })
        else {
            throw .invalidQuery(
                "a library's name is 1 to 100 characters without \"/\", \":\" or control characters, "
                    + "not \(name.debugDescription)"
            )
        }
    }
}

extension LibraryRoots {
    /// This machine's roots as `connection` reads them.
    static func load(_ connection: any StoreConnection) throws -> LibraryRoots {
        LibraryRoots(
            try connection.rows("SELECT library, folder FROM \(table) WHERE machine = ?", [.text(machine)]).map {
                row throws(CatalogError) in Root(library: try row.get(0), folder: try row.get(1))
            })
    }
}

extension Catalog {
    /// This machine's library roots, as read when the catalog opened and set since.
    public nonisolated var libraryRoots: LibraryRoots { roots.withLock { $0 } }

    /// How the file at `path` (any spelling of it) is stored: absolute and standardised, or inside its library. A
    /// path given in a library's form (`family:/2024/beach.jpg`, as a machine without the library's root shows
    /// it) is taken as it is.
    public nonisolated func storedPath(_ path: String) -> String {
        LibraryRoots.split(path) != nil ? path : libraryRoots.stored(Self.standardisedPath(path))
    }

    /// Where a stored path is on this machine (``LibraryRoots/local(_:)``).
    nonisolated func localPath(_ stored: String) -> String {
        libraryRoots.local(stored)
    }

    /// A record from a row of ``ImageRecord/columns``, its path where the file is on this machine.
    nonisolated func imageRecord(_ row: StoreRow) throws(CatalogError) -> ImageRecord {
        var record = try ImageRecord(row: row)
        record.path = localPath(record.path)
        return record
    }

    /// Makes `folder` the root of `library` on this machine (`cbir index FOLDER --library NAME`): from now on the
    /// files inside it are stored by their paths inside the library, as every machine that names its own root
    /// for the library sees them. Files stored before by their absolute paths inside the folder become the
    /// library's (where another machine had already stored the same file in the library, its row is kept and
    /// this machine's is dropped); a library that had another root on this machine moves to this one. A root
    /// cannot be the file system's root, nor lie inside or around another library's root here.
    @discardableResult
    public func setRoot(ofLibrary library: String, to folder: String) throws(CatalogError) -> LibraryRoots.Root {
        try LibraryRoots.checkName(library)
        let folder = Self.standardisedPath(folder)
        var status = stat()
        guard FileSystemPath.withCString(folder, { stat($0, &status) }) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .unreadableFolder(path: folder, reason: "no such folder")
        }
        guard folder != "/" else { throw .invalidQuery("a library's root cannot be the file system's root") }
        if let other = libraryRoots.roots.first(where: { root in
            root.library != library
                && (root.folder == folder || root.folder.hasPrefix(folder + "/") || folder.hasPrefix(root.folder + "/"))
        }) {
            throw .invalidQuery(
                "\(folder) cannot be library \(library)'s root: library \(other.library)'s root here is \(other.folder)"
            )
        }
        let root = LibraryRoots.Root(library: library, folder: folder)
        let inside: [StoreValue] = [.text(folder + "/"), .text(folder + "/")]
        let renamed = "? || substr(path, length(?) + 1)"
        let roots = try writing { connection in
            try connection.execute(
                "DELETE FROM \(LibraryRoots.table) WHERE library = ? AND machine = ?",
                [.text(library), .text(LibraryRoots.machine)])
            try connection.execute(
                "INSERT INTO \(LibraryRoots.table) (library, machine, folder) VALUES (?, ?, ?)",
                [.text(library), .text(LibraryRoots.machine), .text(folder)])
            try connection.execute(
                """
                DELETE FROM images WHERE substr(path, 1, length(?)) = ? \
                AND \(renamed) IN (SELECT path FROM images)
                """, inside + [.text(library + ":"), .text(folder)])
            try connection.execute(
                "UPDATE images SET path = \(renamed) WHERE substr(path, 1, length(?)) = ?",
                [.text(library + ":"), .text(folder)] + inside)
            return try LibraryRoots.load(connection)
        }
        self.roots.withLock { $0 = roots }
        return root
    }
}
