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
    /// Checks the whole file: SQLite's `integrity_check` (every page and index), every face's descriptor,
    /// its parameters and its embedding read back, and every face's image present and indexed. Reads only;
    /// a file too damaged to open or to run the check on is an error.
    public nonisolated func check() throws(CatalogError) -> DatabaseCheck {
        guard let pool else {
            throw .invalidQuery("cbir check reads SQLite files; PostgreSQL checks its own pages (amcheck)")
        }
        return try Self.check(pool, path: path)
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
            let found = try check(file, path: path)
            return DatabaseCheck(
                images: found.images, faces: found.faces,
                problems: ["the catalog cannot open it: \(reason)"] + found.problems)
        }
    }

    private static func check(_ database: some DatabaseReader, path: String) throws(CatalogError) -> DatabaseCheck {
        func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
            do { return try database.read(body) } catch { throw .storage(error, path: path) }
        }
        var problems: [String]
        do {
            problems = try read { db in try Self.integrityProblems(db, quick: false) }
        } catch .damaged(_, let reason) {
            problems = ["SQLite's integrity check stopped: \(reason)"]
        }
        var images = 0, faces = 0
        do {
            let found = try read { db in
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT faces.id, d.parameters, d.descriptor, e.embedding, images.id AS image, images.status
                        FROM faces LEFT JOIN images ON images.id = faces.image_id
                        LEFT JOIN \(FaceStore.descriptorsTable) d ON d.face_id = faces.id LEFT JOIN \
                        \(FaceStore.embeddingsTable) e ON e.face_id = faces.id
                        """)
                var faces = 0, problems: [String] = []
                while let row = try rows.next() {
                    faces += 1
                    problems += Self.faceProblems(row)
                }
                return (
                    images: try ImageRecord.fetchCount(db), faces: faces,
                    problems: problems + (try UnusableVectors(db).problems)
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
    private static func faceProblems(_ row: Row) -> [String] {
        let id: Int64 = row["id"]
        var problems: [String] = []
        do {
            guard let text = row["parameters"] as String?, let stored = row["descriptor"] as Data? else {
                throw CatalogError.storage(path: "faces", reason: "face \(id): no descriptor")
            }
            _ = try FaceRecord.descriptor(
                face: id, parameters: try FaceRecord.parameters(face: id, text), stored: stored)
            if let embedding = row["embedding"] as Data? { _ = try FaceRecord.embedding(face: id, embedding) }
        } catch {
            problems.append("\(error)")
        }
        if row["image"] as Int64? == nil {
            problems.append("face \(id): its image is missing")
        } else if row["status"] as String? != ImageRecord.Status.indexed.rawValue {
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
