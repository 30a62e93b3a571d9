import Foundation
import GRDB

/// What `check()` found.
public struct DatabaseCheck: Sendable, Codable, Equatable {
    /// Images and faces read.
    public let images: Int
    public let faces: Int
    /// Each problem in a line; empty when the database is sound.
    public let problems: [String]

    public var isSound: Bool { problems.isEmpty }
}

extension Catalog {
    /// Checks the whole catalog: SQLite's `integrity_check` (every page and index; a PostgreSQL server keeps its
    /// own), every face's descriptor, its parameters and its embedding read back, every face's image present and
    /// indexed, and every print and embedding made of numbers. Reads only; a file too damaged to open or to run
    /// the check on is an error.
    public nonisolated func check() throws(CatalogError) -> DatabaseCheck {
        try Self.check(storage, sqlite: pool)
    }

    /// ``check()`` of the database at `path`. Where the catalog cannot open it for damage (its record of
    /// migrations unreadable, say), the file is checked as it is, on a connection of its own.
    public static func check(path: String) throws(CatalogError) -> DatabaseCheck {
        if PostgresLocation.isURL(path) { return try Catalog(path: path, access: .readOnly).check() }
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path) }
        do {
            return try Catalog(path: path, access: .readOnly).check()
        } catch .damaged(_, let reason) {
            var readOnly = Configuration()
            readOnly.readonly = true
            let file: DatabaseQueue
            do { file = try DatabaseQueue(path: path, configuration: readOnly) } catch {
                throw .storage(error, path: path)
            }
            let found = try check(SQLiteStore(pool: file, location: path), sqlite: file)
            return DatabaseCheck(
                images: found.images, faces: found.faces,
                problems: ["the catalog cannot open it: \(reason)"] + found.problems)
        }
    }

    /// The check of the rows in `store`, after SQLite's own of its pages where it is a SQLite file.
    private static func check(_ store: any CatalogStore, sqlite: (any DatabaseReader)?) throws(CatalogError)
        -> DatabaseCheck
    {
        var problems: [String] = []
        if let sqlite {
            do { problems = try sqlite.read { db in try Self.integrityProblems(db, quick: false) } } catch {
                guard case .damaged(_, let reason) = CatalogError.storage(error, path: store.location) else {
                    throw .storage(error, path: store.location)
                }
                problems = ["SQLite's integrity check stopped: \(reason)"]
            }
        }
        var images = 0, faces = 0
        do {
            let found = try store.read { connection in
                var faces = 0, problems: [String] = []
                try connection.forEachRow(
                    """
                    SELECT faces.id, d.parameters, d.descriptor, e.embedding, images.id AS image, images.status
                    FROM faces LEFT JOIN images ON images.id = faces.image_id
                    LEFT JOIN \(FaceStore.descriptorsTable) d ON d.face_id = faces.id LEFT JOIN \
                    \(FaceStore.embeddingsTable) e ON e.face_id = faces.id
                    """, []
                ) { row in
                    faces += 1
                    problems += try Self.faceProblems(row)
                }
                return (
                    images: Int(try connection.integer("SELECT COUNT(*) FROM images") ?? 0), faces: faces,
                    problems: problems + (try UnusableVectors(connection).problems)
                )
            }
            (images, faces) = (found.images, found.faces)
            problems += found.problems
        } catch .damaged(_, let reason) {
            problems.append("the faces cannot all be read: \(reason)")
        }
        return DatabaseCheck(images: images, faces: faces, problems: problems)
    }

    /// What is wrong with one face's row (with its image's id and status), a line each.
    private static func faceProblems(_ row: StoreRow) throws(CatalogError) -> [String] {
        let id: Int64 = try row.get(0)
        var problems: [String] = []
        do {
            guard let text = try row.get(1) as String?, let stored = try row.get(2) as Data? else {
                throw CatalogError.storage(path: "faces", reason: "face \(id): no descriptor")
            }
            _ = try FaceRecord.descriptor(
                face: id, parameters: try FaceRecord.parameters(face: id, text), stored: stored)
            switch row.values[3] {
            case .null: break
            case .blob(let bytes): _ = try FaceRecord.embedding(face: id, bytes)
            default: _ = try FaceRecord.embedding(face: id, try row.get(3) as [Float])
            }
        } catch {
            problems.append("\(error)")
        }
        if try row.get(4) as Int64? == nil {
            problems.append("face \(id): its image is missing")
        } else if try row.get(5) as String? != ImageRecord.Status.indexed.rawValue {
            problems.append("face \(id): its image is not marked indexed")
        }
        return problems
    }

    /// SQLite's findings, a line each (none when sound): `quick_check` (pages and structure, cheap enough
    /// for every writer's open) or the full `integrity_check` (indexes against their tables too).
    static func integrityProblems(_ db: Database, quick: Bool) throws -> [String] {
        let lines = try String.fetchAll(db, sql: quick ? "PRAGMA quick_check" : "PRAGMA integrity_check")
            .flatMap { $0.split(separator: "\n").map(String.init) }
            .filter { !$0.hasPrefix("*** in database") }
        return lines == ["ok"] ? [] : lines
    }
}
