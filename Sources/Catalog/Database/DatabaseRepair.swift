import Foundation
import GRDB

/// What ``Catalog/repair(path:)`` saved from a damaged database.
public struct DatabaseRepair: Sendable {
    /// One table's rows: copied, and the row ids that could not be read (a row there, if any, is lost).
    public struct Table: Sendable, Equatable {
        public let name: String
        public let copied: Int
        public let unreadableRowIDs: Int
    }

    /// Every table copied, in name order.
    public let tables: [Table]
    /// Copied rows dropped: because what they belonged to was lost (a face whose photo's row was unreadable),
    /// or because their value does not read back (a damaged descriptor or embedding).
    public let rowsDropped: Int
    /// Named faces kept.
    public let labels: Int
    /// Photos whose stored faces may have lost part of what was stored for them: the next `cbir index` of
    /// their folder indexes them again (their faces' people and names carry over, as for a changed photo).
    public let photosToIndexAgain: [String]
    /// The repaired database: in place of the damaged one, or beside it when another process had the damaged
    /// one open.
    public let repaired: String
    /// Where the damaged file was moved, when the repaired one took its place.
    public let damaged: String?
    /// The tables of analyses left out because the record of the migrations that made them is damaged: the
    /// next run that indexes with their analysis makes them again, empty, and fills them as photos are
    /// indexed again.
    public let tablesLeftOut: [String]
}

extension Catalog {
    /// Saves what can still be read of a damaged database into a new one with the same tables (the
    /// catalog's, and those of analyses that the damaged one has, as it declares them): every row of every
    /// table is tried, in ranges of row ids split down to single rows where a range cannot be
    /// read, so damage costs only the rows on damaged pages (indexes are rebuilt, not copied). Rows left
    /// pointing at lost ones are dropped or unlinked as their foreign keys say. Photos whose faces lost a
    /// descriptor or an embedding, or all their faces, are marked to be indexed again. Unless another
    /// process has the damaged file open, the repaired one then takes its place and the damaged one (with
    /// its write-ahead log) is kept beside it as `<path>.damaged-<time>`. Writers wait while it runs.
    /// Returns nil, having changed nothing, when the database is sound or on PostgreSQL (whose server keeps its
    /// pages); throws `unrepairable`, having changed
    /// nothing, when its schema cannot be read.
    public static func repair(path: String) throws(CatalogError) -> DatabaseRepair? {
        // PostgreSQL keeps its own pages whole: what remains to mend is the rows' (`dropUnusableVectors`).
        guard !PostgresLocation.isURL(path) else { return nil }
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path) }
        let files = DatabaseFiles(path: path)
        do {
            return try files.whileLocked { () throws -> DatabaseRepair? in
                guard let saved = try saveReadableRows(of: path, to: path + ".repaired") else { return nil }
                // Every connection to both files is closed now: the files can be moved.
                guard !files.isOpenElsewhere() else { return saved }
                let kept = "\(path).damaged-\(Int(Date().timeIntervalSince1970))"
                for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                    try FileManager.default.moveItem(atPath: path + suffix, toPath: kept + suffix)
                }
                for cache in files.caches { try? FileManager.default.removeItem(atPath: cache) }
                try FileManager.default.moveItem(atPath: saved.repaired, toPath: path)
                return DatabaseRepair(
                    tables: saved.tables, rowsDropped: saved.rowsDropped, labels: saved.labels,
                    photosToIndexAgain: saved.photosToIndexAgain, repaired: path, damaged: kept,
                    tablesLeftOut: saved.tablesLeftOut)
            }
        } catch {
            throw .storage(error, path: path)
        }
    }

    /// Copies the readable rows of the database at `path` into a new catalog at `repaired`, and closes both;
    /// nil when the database is sound.
    private static func saveReadableRows(of path: String, to repaired: String) throws -> DatabaseRepair? {
        var readOnly = Configuration()
        readOnly.readonly = true  // the damaged file stays as it was
        let damaged: DatabaseQueue
        do {
            damaged = try DatabaseQueue(path: path, configuration: readOnly)
            _ = try damaged.read { db in try Row.fetchAll(db, sql: "SELECT sql FROM sqlite_master") }
        } catch  where isDamage(error) {
            throw CatalogError.unrepairable(
                path: path, reason: "its schema, SQLite's list of the tables and where they start, is damaged")
        }
        guard try !isSound(damaged) else { return nil }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: repaired + suffix) }
        _ = try Catalog(path: repaired)
        try? FileManager.default.removeItem(atPath: DatabaseFiles(path: repaired).lock)
        var unchecked = Configuration()
        unchecked.foreignKeysEnabled = false  // rows come in any order; those left without what they belong to go after
        let target = try DatabaseQueue(path: repaired, configuration: unchecked)
        let leftOut = try copyAnalysesTables(from: damaged, to: target)
        let tables = try copyTables(from: damaged, to: target)
        let dropped = try target.write { db in try dropOrphans(db) + dropDamagedFaceData(db) + dropUnusableVectors(db) }
        let facesLost = tables.contains { $0.name == "faces" && $0.unreadableRowIDs > 0 }
        let photos = try target.write { db in try markIncompletePhotos(db, facesLost: facesLost) }
        let labels =
            try target.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM faces JOIN persons ON persons.id = person_id WHERE name IS NOT NULL")
            } ?? 0
        guard try isSound(target) else {
            throw CatalogError.storage(path: repaired, reason: "the repaired copy is not sound")
        }
        return DatabaseRepair(
            tables: tables, rowsDropped: dropped, labels: labels, photosToIndexAgain: photos, repaired: repaired,
            damaged: nil, tablesLeftOut: leftOut)
    }

    /// Whether SQLite's full integrity check passes (it may itself stop on damage).
    private static func isSound(_ database: DatabaseQueue) throws -> Bool {
        do {
            return try database.read { db in try Self.integrityProblems(db, quick: false) }.isEmpty
        } catch  where isDamage(error) {
            return false
        }
    }

    /// Whether an error is SQLite finding the file damaged.
    private static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? GRDB.DatabaseError else { return false }
        return [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode)
    }

    /// Makes in `target` the tables (with their indexes and triggers) that analyses made in `source` and a
    /// new catalog lacks, as `source` declares them, and records their migrations as applied there. Where the
    /// record of migrations cannot be read, it makes none (an analysis would not know its tables are made)
    /// and returns the tables left out.
    private static func copyAnalysesTables(from source: DatabaseQueue, to target: DatabaseQueue) throws -> [String] {
        let known = try target.read { db in
            try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        }
        let schema = try source.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT type, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type = 'table' DESC
                    """
            ).filter { !known.contains($0["tbl_name"] as String) }
        }
        let migrations: [String]
        do {
            migrations = try source.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
        } catch  where isDamage(error) {
            return schema.filter { $0["type"] == "table" }.map { $0["tbl_name"] }
        }
        try target.write { db in
            for row in schema { try db.execute(sql: row["sql"]) }
            for migration in migrations {
                try db.execute(sql: "INSERT OR IGNORE INTO grdb_migrations VALUES (?)", arguments: [migration])
            }
        }
        return []
    }

    /// Rows read at a time from a damaged table before a failing range is split.
    private static let repairChunk: Int64 = 512

    /// Copies every readable row of the target's tables (but its own bookkeeping) from `source`.
    private static func copyTables(from source: DatabaseQueue, to target: DatabaseQueue) throws -> [DatabaseRepair
        .Table]
    {
        let names = try target.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT IN ('grdb_migrations', '\(TableTags.table)') ORDER BY name
                    """)
        }
        return try names.map { name in
            let (select, insert) = try copyStatements(name, from: source, to: target)
            var count = 0, unreadable = 0
            func copy(_ range: ClosedRange<Int64>) throws {
                let rows: [Row]
                do {
                    rows = try source.read { db in
                        try Row.fetchAll(db, sql: select, arguments: [range.lowerBound, range.upperBound])
                    }
                } catch  where isDamage(error) {
                    guard range.count > 1 else {
                        unreadable += 1
                        return
                    }
                    let middle = range.lowerBound + Int64(range.count / 2)
                    try copy(range.lowerBound...middle - 1)
                    return try copy(middle...range.upperBound)
                }
                try target.write { db in
                    for row in rows { try db.execute(sql: insert, arguments: StatementArguments(row.databaseValues)) }
                }
                count += rows.count
            }
            let last = try lastRowID(of: name, in: source)
            for start in stride(from: Int64(0), through: last, by: Int(repairChunk)) {
                try copy(start...min(start + repairChunk - 1, last))
            }
            return DatabaseRepair.Table(name: name, copied: count, unreadableRowIDs: unreadable)
        }
    }

    /// The statements that read a range of a table's rows by row id from `source` and write one into
    /// `target`: the columns both have, and the row id too where it is not one of them.
    private static func copyStatements(_ table: String, from source: DatabaseQueue, to target: DatabaseQueue)
        throws -> (select: String, insert: String)
    {
        let targetColumns = try target.read { db in try db.columns(in: table) }
        let sourceColumns = Set(try source.read { db in try db.columns(in: table) }.map(\.name))
        let keys = targetColumns.filter { $0.primaryKeyIndex > 0 }
        let rowidIsAColumn = keys.count == 1 && keys[0].type.uppercased() == "INTEGER"
        let columns =
            (rowidIsAColumn ? [] : ["rowid"])
            + targetColumns.map(\.name).filter(sourceColumns.contains).map(\.quotedDatabaseIdentifier)
        let list = columns.joined(separator: ", "), quoted = table.quotedDatabaseIdentifier
        return (
            "SELECT \(list) FROM \(quoted) WHERE rowid BETWEEN ? AND ?",
            "INSERT OR IGNORE INTO \(quoted) (\(list)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        )
    }

    /// The largest row id a table may hold: its own largest, or where that cannot be read, the largest any
    /// AUTOINCREMENT counter has handed out.
    private static func lastRowID(of table: String, in source: DatabaseQueue) throws -> Int64 {
        do {
            let sql = "SELECT MAX(rowid) FROM \(table.quotedDatabaseIdentifier)"
            return try source.read { db in try Int64.fetchOne(db, sql: sql) } ?? 0
        } catch {
            return try source.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM sqlite_sequence") } ?? 0
        }
    }

    /// Deletes the rows whose foreign keys point at lost rows, or sets those keys to NULL where the key says
    /// ON DELETE SET NULL, until none is left; returns how many rows were deleted.
    private static func dropOrphans(_ db: Database) throws -> Int {
        var dropped = 0
        while true {
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            guard !violations.isEmpty else { return dropped }
            for violation in violations {
                let table = (violation["table"] as String).quotedDatabaseIdentifier, rowid: Int64 = violation["rowid"]
                let keys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(table))")
                let key = keys.first { $0["id"] == violation["fkid"] as Int }
                if let column = (key?["from"] as String?)?.quotedDatabaseIdentifier, key?["on_delete"] == "SET NULL" {
                    try db.execute(sql: "UPDATE \(table) SET \(column) = NULL WHERE rowid = ?", arguments: [rowid])
                } else {
                    try db.execute(sql: "DELETE FROM \(table) WHERE rowid = ?", arguments: [rowid])
                    dropped += db.changesCount
                }
            }
        }
    }

    /// Deletes the prints and embeddings whose values are not all numbers (``UnusableVectors``: damage
    /// inside a value, which SQLite does not see, reads as such), for `cbir index` to make again; returns how many.
    private static func dropUnusableVectors(_ db: Database) throws -> Int {
        let unusable = try UnusableVectors(SQLiteConnection(db: db))
        try unusable.drop(SQLiteConnection(db: db))
        return unusable.prints.count + unusable.embeddings.count
    }

    /// Deletes the descriptors and embeddings that do not read back (damage inside a value: SQLite checks
    /// pages, not what they hold), so that their photos are indexed again; returns how many.
    private static func dropDamagedFaceData(_ db: Database) throws -> Int {
        var damaged: [(table: String, face: Int64)] = []
        let descriptors = try Row.fetchCursor(
            db, sql: "SELECT face_id, parameters, descriptor FROM \(FaceStore.descriptorsTable)")
        while let row = try descriptors.next() {
            let face: Int64 = row["face_id"]
            do {
                let parameters = try FaceRecord.parameters(face: face, row["parameters"])
                _ = try FaceRecord.descriptor(face: face, parameters: parameters, stored: row["descriptor"])
            } catch {
                damaged.append((FaceStore.descriptorsTable, face))
            }
        }
        let embeddings = try Row.fetchCursor(db, sql: "SELECT face_id, embedding FROM \(FaceStore.embeddingsTable)")
        while let row = try embeddings.next() {
            let face: Int64 = row["face_id"]
            do {
                _ = try FaceRecord.embedding(face: face, row["embedding"])
            } catch {
                damaged.append((FaceStore.embeddingsTable, face))
            }
        }
        for (table, face) in damaged {
            try db.execute(sql: "DELETE FROM \(table) WHERE face_id = ?", arguments: [face])
        }
        return damaged.count
    }

    /// Marks for indexing again (a modification time and hash no file has) the photos with a face that lost
    /// its descriptor or embedding, and where face rows were lost, the indexed photos left with none (which
    /// includes those that had none); returns their paths.
    private static func markIncompletePhotos(_ db: Database, facesLost: Bool) throws -> [String] {
        let (descriptors, embeddings) = (FaceStore.descriptorsTable, FaceStore.embeddingsTable)
        let incomplete = """
            SELECT image_id FROM faces WHERE id NOT IN (SELECT face_id FROM \(descriptors))
            OR (id NOT IN (SELECT face_id FROM \(embeddings)) AND EXISTS (SELECT 1 FROM \(embeddings)))
            """
            + (facesLost
                ? " UNION SELECT id FROM images WHERE status = 'indexed' AND id NOT IN (SELECT image_id FROM faces)"
                : "")
        let paths = try String.fetchAll(db, sql: "SELECT path FROM images WHERE id IN (\(incomplete)) ORDER BY path")
        try db.execute(sql: "UPDATE images SET modified = -1, hash = '' WHERE id IN (\(incomplete))")
        return paths
    }
}
