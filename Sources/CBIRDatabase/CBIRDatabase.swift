import Foundation
import GRDB
import ImageCodecs
import ImageKernels

/// The face database: one SQLite file (WAL mode, so queries read while indexing writes), images and what
/// each registered indexer stores for them. An actor, like the reference system's serial database
/// thread: every write is one transaction on it, from any task.
public actor CBIRDatabase {
    /// The database file.
    public nonisolated let path: String
    /// It and the files beside it.
    nonisolated let files: DatabaseFiles
    /// The indexers run on every image, by name.
    public nonisolated let indexers: [any Indexer]
    /// What photos are decoded and faces searched on: one device for indexing and searching.
    public nonisolated let context: RenderContext
    /// A pool of connections (WAL: reads beside a write); for a read-only file in a read-only folder, one
    /// connection that reads it as immutable.
    let pool: any DatabaseWriter
    /// Search galleries kept between queries.
    nonisolated let galleries = GalleryCache()

    /// How long a writer waits for another process's transaction before giving up, in seconds.
    public static let busyTimeout: TimeInterval = 30

    /// Whether a database is opened to be written or only read.
    public enum Access: Sendable {
        /// Creates the file if needed, brings its tables up to date and checks it (`PRAGMA quick_check`):
        /// nothing is written into a damaged file.
        case readWrite
        /// Reads a file that may not be writable (permissions, an immutable flag); its tables must be up to
        /// date (an older database is upgraded by the next `index`).
        case readOnly
    }

    /// Opens the database at `path` for `access` (by default creating it and bringing its tables up to date,
    /// the indexers' included). Photos are decoded and searched on `context`: by default the one the face
    /// indexer was given, else a new one on the device that searches fastest here (``Device/best(for:)``).
    /// Writers from other processes are waited for up to `busyTimeout`.
    public init(path: String = "cbir.sqlite", indexers: [any Indexer], context: RenderContext? = nil,
                access: Access = .readWrite) throws(DatabaseError) {
        let names = indexers.map(\.name)
        guard Set(names).count == names.count else {
            throw .storage(path: path, reason: "two indexers share a name: \(names.sorted().joined(separator: ", "))")
        }
        self.path = path
        files = DatabaseFiles(path: path)
        self.indexers = indexers
        do {
            self.context = try RenderContext.orDefault(context ?? indexers.lazy.compactMap { ($0 as? FaceIndexer)?.context }.first,
                                                       for: .search)
        } catch {
            throw .processing("\(path): \(error)")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.readonly = access == .readOnly
        if access == .readWrite, try Self.isReadOnly(path) { throw .readOnly(path: path) }
        let migrator = Self.migrator(indexers)
        do {
            switch access {
            case .readWrite:
                pool = try files.whileLocked {
                    let pool = try Self.connect(path, configuration: configuration)
                    let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
                    try migrator.migrate(pool)
                    // A migration that rewrote most of the file (descriptors moved to their compact table)
                    // leaves most of its pages free: the file gives them back once.
                    if try pool.read({ db in try migrator.appliedIdentifiers(db) != applied && Self.isMostlyFree(db) }) { try pool.vacuum() }
                    let problems = try pool.read { db in try Self.integrityProblems(db, quick: true) }
                    guard problems.isEmpty else { throw DatabaseError.damaged(path: path, reason: problems.prefix(3).joined(separator: "; ")) }
                    return pool
                }
            case .readOnly:
                pool = try Self.connect(path, configuration: configuration)
                guard try pool.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                    throw DatabaseError.storage(path: path, reason: "made by an older version; `cbir index` upgrades it")
                }
            }
        } catch {
            throw .storage(error, path: path)
        }
    }

    /// Whether more than half of the file's pages are free.
    private static func isMostlyFree(_ db: Database) throws -> Bool {
        try 2 * (Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0) > (Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)
    }

    /// A connection pool on the file; read-only where SQLite cannot make the shared-memory file a WAL
    /// database needs beside it (a read-only folder), the file opened as immutable instead.
    private static func connect(_ path: String, configuration: Configuration) throws -> any DatabaseWriter {
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            if configuration.readonly { try pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") } }
            return pool
        } catch let error as GRDB.DatabaseError where configuration.readonly
                    && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode) {
            return try DatabaseQueue(path: URL(fileURLWithPath: path).absoluteString + "?immutable=1", configuration: configuration)
        }
    }

    /// Whether an existing database file, or the folder a new one would go in, cannot be written.
    private static func isReadOnly(_ path: String) throws(DatabaseError) -> Bool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: path) else {
            guard FileManager.default.fileExists(atPath: folder) else { throw .storage(path: path, reason: "no such folder: \(folder)") }
            return access(folder, W_OK) != 0
        }
        // The write-ahead log beside the file needs the folder too, unless it is already there.
        return access(path, W_OK) != 0 || (!FileManager.default.fileExists(atPath: path + "-wal") && access(folder, W_OK) != 0)
    }

    /// The tables' migrations: images, then each indexer's tables and their later changes.
    private static func migrator(_ indexers: [any Indexer]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("images") { db in
            try db.create(table: ImageRecord.databaseTableName) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("path", .text).notNull().unique()
                t.column("size", .integer).notNull()
                t.column("modified", .double).notNull()
                t.column("hash", .text).notNull()
                t.column("width", .integer).notNull()
                t.column("height", .integer).notNull()
                t.column("status", .text).notNull()
                t.column("error", .text)
            }
        }
        for indexer in indexers {
            migrator.registerMigration("indexer \(indexer.name)") { db in try indexer.createTables(db) }
            for (name, change) in indexer.tableChanges {
                migrator.registerMigration("indexer \(indexer.name) \(name)", migrate: change)
            }
        }
        return migrator
    }

    /// Reads in a snapshot, concurrently with writes.
    public nonisolated func read<T>(_ body: @Sendable (Database) throws -> T) throws(DatabaseError) -> T {
        do { return try pool.read(body) } catch { throw .storage(error, path: path) }
    }

    /// Writes in one transaction.
    public func write<T>(_ body: @Sendable (Database) throws -> T) throws(DatabaseError) -> T {
        do { return try pool.write(body) } catch { throw .storage(error, path: path) }
    }

    /// How a file's path is stored: absolute and standardised, so that any spelling of it finds its row.
    public nonisolated static func storedPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// What the stored paths of files inside a folder (a stored path) start with.
    nonisolated static func folderPrefix(_ folder: String) -> String {
        folder.hasSuffix("/") ? folder : folder + "/"
    }

    /// The stored record of a file, if any.
    public nonisolated func image(atPath path: String) throws(DatabaseError) -> ImageRecord? {
        let path = Self.storedPath(path)
        return try read { db in try ImageRecord.filter(Column("path") == path).fetchOne(db) }
    }

    /// The registered face indexer, whose store holds the faces.
    nonisolated func faceIndexer() throws(DatabaseError) -> FaceIndexer {
        guard let indexer = indexers.lazy.compactMap({ $0 as? FaceIndexer }).first else {
            throw .invalidQuery("\(path): no face indexer is registered")
        }
        return indexer
    }

    /// Stored faces by id, in no particular order.
    public nonisolated func faces(_ ids: [Int64]) throws(DatabaseError) -> [FaceRecord] {
        let store = try faceIndexer().store
        return try read { db in try store.faces(ids, db) }
    }

    /// The stored faces of a file, left to right.
    public nonisolated func faces(inImageAtPath path: String) throws(DatabaseError) -> [FaceRecord] {
        guard let image = try image(atPath: path), let id = image.id else { throw .notFound(path) }
        let store = try faceIndexer().store
        return try read { db in try store.faces(ofImage: id, db) }
    }

    /// The write that replaces whatever was stored for the record's path by the record and the indexers'
    /// rows: inside one transaction, a crash leaves the old version or the new one, never a mix. Faces
    /// assigned to people by hand pass their assignments to the new faces with the same boxes.
    nonisolated func replacement(_ record: ImageRecord, writes: [@Sendable (Database, Int64) throws -> Void])
        -> @Sendable (Database) throws -> Void {
        let hasFaces = (try? faceIndexer()) != nil
        return { db in
            let assignments = hasFaces ? try Self.handAssignments(at: record.path, db) : []
            try ImageRecord.filter(Column("path") == record.path).deleteAll(db)
            var record = record
            try record.insert(db)
            guard let id = record.id else { return }
            for write in writes { try write(db, id) }
            try Self.restoreHandAssignments(assignments, at: record.path, db)
        }
    }

    static func setModified(_ modified: Double, image id: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE images SET modified = ? WHERE id = ?", arguments: [modified, id])
    }

    /// Forgets a file, or every file under a folder, and (through the indexers' foreign keys) everything
    /// stored for them. Returns how many files were forgotten.
    public func remove(path: String) throws(DatabaseError) -> Int {
        let path = Self.storedPath(path), folder = Self.folderPrefix(path)
        return try write { db in
            try db.execute(sql: "DELETE FROM images WHERE path = ? OR substr(path, 1, ?) = ?",
                           arguments: [path, folder.unicodeScalars.count, folder])
            return db.changesCount
        }
    }

    /// Counts of what is stored.
    public struct Statistics: Sendable, Codable, Equatable {
        public let images: Int
        public let failedImages: Int
        public let faces: Int
        public let labelledFaces: Int
        public let labels: Int
    }

    public nonisolated func statistics() throws(DatabaseError) -> Statistics {
        let store = try faceIndexer().store
        return try read { db in
            let faces = try store.counts(db)
            return Statistics(images: try ImageRecord.filter(Column("status") == ImageRecord.Status.indexed.rawValue).fetchCount(db),
                              failedImages: try ImageRecord.filter(Column("status") == ImageRecord.Status.failed.rawValue).fetchCount(db),
                              faces: faces.faces, labelledFaces: faces.labelled, labels: faces.labels)
        }
    }

    /// Paths of stored images by id.
    nonisolated func paths(of images: [Int64]) throws(DatabaseError) -> [Int64: String] {
        try read { db in
            Dictionary(try Row.fetchAll(db, sql: "SELECT id, path FROM images WHERE id IN (\(FaceStore.list(images)))")
                .map { ($0[0] as Int64, $0[1] as String) }) { first, _ in first }
        }
    }
}
