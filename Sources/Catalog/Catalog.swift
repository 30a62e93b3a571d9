import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import Synchronization

/// The catalog of photos: one SQLite file (WAL mode, so queries read while indexing writes), or a PostgreSQL
/// database with pgvector that several machines share, with every table the project knows — images, faces,
/// their descriptors and embeddings, people — and its records, checks and repair. It opens with no model and
/// no device: analysing photos is the business of the analyses an indexing run or a probe is handed
/// (``PhotoAnalysis``, ``FaceAnalysis``). An actor, like the reference system's serial database thread: every
/// write is one transaction on it, from any task.
public actor Catalog {
    /// The database file, or the PostgreSQL database's URL without its password.
    public nonisolated let path: String
    /// It and the files beside it; for a PostgreSQL catalog, the caches and thumbnails this machine keeps of
    /// it (`PostgresLocation.cacheFolder()`).
    public nonisolated let files: DatabaseFiles
    /// Where the rows are: every statement of the catalog's goes through it.
    nonisolated let storage: any CatalogStore
    /// A SQLite catalog's pool of connections (WAL: reads beside a write); for a read-only file in a read-only
    /// folder, one connection that reads it as immutable. Nil for a PostgreSQL catalog.
    let pool: (any DatabaseWriter)?
    /// The statements on the faces' tables.
    nonisolated let store = FaceStore()
    /// Search galleries kept between queries.
    nonisolated let galleries = GalleryCache()
    /// The database file's identity when it was opened: a write finds the file it opened still there, or
    /// refuses (the file deleted or replaced under a running server, say, whose writes would be lost).
    private nonisolated let identity: FileIdentity?
    /// This machine's library roots (``libraryRoots``), set anew when a root is.
    nonisolated let roots: Mutex<LibraryRoots>

    /// How long a writer waits for another process's transaction before giving up, in seconds.
    public static let busyTimeout: TimeInterval = 30

    /// Whether a catalog is opened to be written or only read.
    public enum Access: Sendable {
        /// Creates the file if needed, brings its tables up to date and checks it (`PRAGMA quick_check`):
        /// nothing is written into a damaged file.
        case readWrite
        /// Reads a file that may not be writable (permissions, an immutable flag); its tables must be up to
        /// date (an older database is upgraded by the next writer).
        case readOnly
    }

    /// Opens the catalog at `path` (a SQLite file, or a `postgres://` URL: ``PostgresLocation``) for `access`
    /// (by default creating it and bringing its tables up to date). Writers from other processes are waited
    /// for up to `busyTimeout`.
    ///
    /// A PostgreSQL catalog may be read from a streaming replica of its server, `replica` (a URL): reads go there
    /// while it is fresh, to the primary otherwise, and `log` hears when that changes (`ReplicatedStore`).
    public init(
        path: String = "cbir.sqlite", access: Access = .readWrite, replica: String? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(CatalogError) {
        if PostgresLocation.isURL(path) {
            let url = try PostgresLocation(path)
            self.path = url.description
            files = DatabaseFiles(path: url.cacheFolder() + "/catalog")
            let primary = try PostgresStore(url, access: access)
            if let replica {
                guard PostgresLocation.isURL(replica) else {
                    throw .invalidQuery("a read replica is a postgres:// URL, not \(replica)")
                }
                storage = try ReplicatedStore(
                    primary: primary, replica: PostgresStore(try PostgresLocation(replica), access: .readOnly),
                    log: log)
            } else {
                storage = primary
            }
            pool = nil
            identity = nil
            roots = Mutex(try storage.read(LibraryRoots.load))
            return
        }
        guard replica == nil else {
            throw .invalidQuery("a read replica is for a PostgreSQL catalog (postgres://…), not the file \(path)")
        }
        self.path = path
        files = DatabaseFiles(path: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.readonly = access == .readOnly
        var status = stat()
        if FileSystemPath.withCString(path, { stat($0, &status) }) == 0, let failure = RegularFile.failure(status) {
            throw .storage(path: path, reason: "no database: \(failure)")
        }
        if access == .readWrite, try Self.isReadOnly(path) { throw .readOnly(path: path) }
        let migrator = CatalogSchema.migrator()
        let pool: any DatabaseWriter
        do {
            switch access {
            case .readWrite:
                pool = try files.whileLocked {
                    let pool = try Self.connect(path, configuration: configuration)
                    try Self.migrate(pool, with: migrator, path: path)
                    let problems = try pool.read { db in try Self.integrityProblems(db, quick: true) }
                    guard problems.isEmpty else {
                        throw CatalogError.damaged(path: path, reason: problems.prefix(3).joined(separator: "; "))
                    }
                    return pool
                }
            case .readOnly:
                pool = try Self.connect(path, configuration: configuration)
                guard try pool.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                    throw CatalogError.storage(path: path, reason: "made by an older version; `cbir index` upgrades it")
                }
            }
        } catch {
            throw .storage(error, path: path)
        }
        self.pool = pool
        storage = SQLiteStore(pool: pool, location: path)
        identity = FileIdentity(path: path)
        roots = Mutex(try storage.read(LibraryRoots.load))
    }

    /// Runs the migrations `migrator` has and the file lacks. A migration that rewrote most of the file
    /// (descriptors moved to their compact table) leaves most of its pages free: the file gives them back once.
    private static func migrate(_ pool: any DatabaseWriter, with migrator: DatabaseMigrator, path: String) throws {
        let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        try migrator.migrate(pool)
        if try pool.read({ db in try migrator.appliedIdentifiers(db) != applied && Self.isMostlyFree(db) }) {
            try pool.vacuum()
        }
    }

    /// Makes the tables of `analyses` that the file lacks, as writers' opens do, before a run indexes with them.
    func prepare(_ analyses: [any PhotoAnalysis]) throws(CatalogError) {
        let names = analyses.map(\.name)
        guard Set(names).count == names.count else {
            throw .invalidQuery("two analyses share a name: \(names.sorted().joined(separator: ", "))")
        }
        guard let withTables = analyses.first(where: { !$0.migrations.isEmpty }) else { return }
        guard let pool else {
            throw .invalidQuery("analysis \(withTables.name) makes tables of its own, which only SQLite catalogs hold")
        }
        do {
            try files.whileLocked { try Self.migrate(pool, with: CatalogSchema.migrator(adding: analyses), path: path) }
        } catch {
            throw .storage(error, path: path)
        }
    }

    /// Whether more than half of the file's pages are free.
    private static func isMostlyFree(_ db: Database) throws -> Bool {
        try 2 * (Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0)
            > (Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)
    }

    /// A connection pool on the file; read-only where SQLite cannot make the shared-memory file a WAL
    /// database needs beside it (a read-only folder), the file opened as immutable instead.
    private static func connect(_ path: String, configuration: Configuration) throws -> any DatabaseWriter {
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            if configuration.readonly {
                try pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            }
            return pool
        } catch let error as GRDB.DatabaseError
            where configuration.readonly
            && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode)
        {
            return try DatabaseQueue(
                path: URL(fileURLWithPath: path).absoluteString + "?immutable=1", configuration: configuration)
        }
    }

    /// Whether an existing database file, or the folder a new one would go in, cannot be written.
    private static func isReadOnly(_ path: String) throws(CatalogError) -> Bool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: path) else {
            guard FileManager.default.fileExists(atPath: folder) else {
                throw .storage(path: path, reason: "no such folder: \(folder)")
            }
            return access(folder, W_OK) != 0
        }
        // The write-ahead log beside the file needs the folder too, unless it is already there.
        return access(path, W_OK) != 0
            || (!FileManager.default.fileExists(atPath: path + "-wal") && access(folder, W_OK) != 0)
    }

    /// Reads a SQLite catalog's file in a snapshot, concurrently with writes.
    public nonisolated func read<T>(_ body: @Sendable (Database) throws -> T) throws(CatalogError) -> T {
        do { return try sqlite().read(body) } catch { throw .storage(error, path: path) }
    }

    /// A SQLite catalog's connections, or an error that says a PostgreSQL catalog has none.
    private nonisolated func sqlite() throws(CatalogError) -> any DatabaseWriter {
        guard let pool else { throw .invalidQuery("\(path) is a PostgreSQL catalog, not a SQLite file") }
        return pool
    }

    /// Writes in one transaction, into the file the catalog opened.
    public func write<T>(_ body: @Sendable (Database) throws -> T) throws(CatalogError) -> T {
        guard FileIdentity(path: path) == identity else {
            throw .storage(
                path: path, reason: "the database file was deleted or replaced since it was opened; nothing was written"
            )
        }
        do { return try sqlite().write(body) } catch { throw .storage(error, path: path) }
    }

    /// Whether the catalog's calls wait on a server's answers (PostgreSQL's) rather than on this machine's disk
    /// and cores: a server of many requests runs them on threads that may block.
    public nonisolated var waitsOnRoundTrips: Bool { storage.waitsOnRoundTrips }

    /// Reads in a snapshot through the store's connection, concurrently with writes.
    nonisolated func reading<T>(_ body: @Sendable (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try storage.read(body)
    }

    /// Reads what one statement answers (``CatalogStore/readStatement(_:)``): on a server, one round trip.
    nonisolated func readingStatement<T>(_ body: @Sendable (any StoreConnection) throws -> T) throws(CatalogError)
        -> T
    {
        try storage.readStatement(body)
    }

    /// Writes in one transaction through the store's connection, into the file the catalog opened.
    @discardableResult
    func writing<T>(_ body: @Sendable (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try checkIdentity()
        return try storage.write(body)
    }

    /// Writes as ``writing(_:)`` does, on disk before it returns (``CatalogStore/writeDurably(_:)``): a
    /// journal line a file is moved after.
    @discardableResult
    func writingDurably<T>(_ body: @Sendable (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try checkIdentity()
        return try storage.writeDurably(body)
    }

    /// Throws where the database file is no longer the one the catalog opened.
    private func checkIdentity() throws(CatalogError) {
        guard pool == nil || FileIdentity(path: path) == identity else {
            throw .storage(
                path: path, reason: "the database file was deleted or replaced since it was opened; nothing was written"
            )
        }
    }

    /// A file's path absolute and standardised, so that any spelling of it finds its row (``storedPath(_:)``).
    public nonisolated static func standardisedPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// What the stored paths of files inside a folder (a stored path) start with.
    nonisolated static func folderPrefix(_ folder: String) -> String {
        folder.hasSuffix("/") ? folder : folder + "/"
    }

    /// The stored record of a file, if any.
    public nonisolated func image(atPath path: String) throws(CatalogError) -> ImageRecord? {
        let path = storedPath(path)
        return try reading { connection in
            try connection.rows("SELECT \(ImageRecord.columns) FROM images WHERE path = ?", [.text(path)]).first.map(
                imageRecord)
        }
    }

    /// Stored faces by id, in no particular order.
    public nonisolated func faces(_ ids: [Int64]) throws(CatalogError) -> [FaceRecord] {
        try reading { [store] connection in try store.faces(ids, connection) }
    }

    /// The stored faces of a file, left to right.
    public nonisolated func faces(inImageAtPath path: String) throws(CatalogError) -> [FaceRecord] {
        guard let image = try image(atPath: path), let id = image.id else { throw .notFound(path) }
        return try reading { [store] connection in try store.faces(ofImage: id, connection) }
    }

    /// The write that replaces whatever was stored for the record's path by the record and the analyses'
    /// rows: inside one transaction, a crash leaves the old version or the new one, never a mix. Faces
    /// assigned to people by hand pass their assignments to the new faces with the same boxes.
    nonisolated func replacement(
        _ record: ImageRecord, writes: [@Sendable (any StoreConnection, Int64) throws -> Void]
    ) -> @Sendable (any StoreConnection) throws -> Void {
        let path = storedPath(record.path)
        return { connection in
            let assignments = try Self.handAssignments(at: path, connection)
            try connection.execute("DELETE FROM images WHERE path = ?", [.text(path)])
            guard
                let id: Int64 = try connection.rows(
                    """
                    INSERT INTO images (path, size, modified, hash, width, height, status, error) \
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                    """,
                    [
                        .text(path), .integer(record.size), .real(record.modified), .text(record.hash),
                        .integer(Int64(record.width)), .integer(Int64(record.height)), .text(record.status.rawValue),
                        record.error.map(StoreValue.text) ?? .null,
                    ]
                ).first?.get(0)
            else { return }
            for write in writes { try write(connection, id) }
            try Self.restoreHandAssignments(assignments, at: path, connection)
        }
    }

    static func setModified(_ modified: Double, image id: Int64, _ connection: any StoreConnection) throws {
        try connection.execute("UPDATE images SET modified = ? WHERE id = ?", [.real(modified), .integer(id)])
    }

    /// Forgets a file, or every file under a folder, and (through the foreign keys of every table) everything
    /// stored for them. Returns how many files were forgotten.
    public func remove(path: String) throws(CatalogError) -> Int {
        let path = storedPath(path), folder = Self.folderPrefix(path)
        return try writing { connection in
            try connection.execute(
                "DELETE FROM images WHERE path = ? OR substr(path, 1, length(?)) = ?",
                [.text(path), .text(folder), .text(folder)])
        }
    }

    /// Counts of what is stored.
    public struct Statistics: Sendable, Codable, Equatable {
        public let images: Int
        public let failedImages: Int
        public let faces: Int
        public let labelledFaces: Int
        public let labels: Int
        /// Images with a print, hash and sharpness (``PhotoPrintAnalysis``).
        public let printedImages: Int
    }

    public nonisolated func statistics() throws(CatalogError) -> Statistics {
        try reading { [store] connection in
            let faces = try store.counts(connection)
            func count(_ status: ImageRecord.Status) throws -> Int {
                Int(
                    try connection.integer("SELECT COUNT(*) FROM images WHERE status = ?", [.text(status.rawValue)])
                        ?? 0)
            }
            return Statistics(
                images: try count(.indexed), failedImages: try count(.failed), faces: faces.faces,
                labelledFaces: faces.labelled, labels: faces.labels, printedImages: try PhotoStore().count(connection))
        }
    }

    /// Paths of stored images by id.
    nonisolated func paths(of images: [Int64]) throws(CatalogError) -> [Int64: String] {
        try reading { connection in
            Dictionary(
                try connection.rows("SELECT id, path FROM images WHERE id IN (\(RowBatches.list(images)))", [])
                    .map { row throws(CatalogError) in (try row.get(0) as Int64, localPath(try row.get(1))) }
            ) { first, _ in first }
        }
    }
}
