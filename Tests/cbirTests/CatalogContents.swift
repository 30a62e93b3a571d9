import Foundation
import GRDB
import TestSupport
import Testing

/// Everything a catalog stores, without row ids, to compare two catalogs that should hold the same: a line a
/// face (or a photo without faces) with its photo's record, box, descriptor, embedding, print (at half
/// precision, as PostgreSQL keeps it), person's name, hidden flag, assignment, and its person as the first of
/// that person's faces.
enum CatalogContents {
    /// The lines of the SQLite catalog at `path`, sorted.
    static func lines(_ path: String) throws -> [String] {
        let rows = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT images.path || ' ' || status || ' ' || IFNULL(error, '') || ' ' || size || ' ' || \
                    images.hash || ' ' || images.width
                           || 'x' || images.height || ' ' || IFNULL(x || ',' || y || ',' || faces.width || ',' || \
                           faces.height, '') AS face,
                           IFNULL(hex(d.descriptor), '') || ' ' || IFNULL(hex(e.embedding), '') || ' ' || \
                           IFNULL(p.hash || ' ' || p.sharpness, '') || ' ' || IFNULL(name, '-') || ' '
                           || IFNULL(hidden, '-') || ' ' || IFNULL(assignment, '-') AS stored,
                           p.print, person_id
                    FROM images LEFT JOIN faces ON faces.image_id = images.id LEFT JOIN face_descriptors d ON \
                    d.face_id = faces.id
                    LEFT JOIN face_embeddings e ON e.face_id = faces.id LEFT JOIN persons ON persons.id = person_id
                    LEFT JOIN photo_prints p ON p.image_id = images.id
                    """)
        }
        var firstFace: [Int64: String] = [:]
        for row in rows {
            guard let person = row["person_id"] as Int64? else { continue }
            firstFace[person] = min(firstFace[person] ?? row["face"], row["face"])
        }
        return rows.map { row in
            """
            \(row["face"] as String) \(row["stored"] as String) \(halfPrecision(row["print"])) \
            \((row["person_id"] as Int64?).flatMap { firstFace[$0] } ?? "-")
            """
        }.sorted()
    }

    /// The lines of catalog `db`, a SQLite file or a PostgreSQL database (copied into a file in `folder` first).
    static func lines(of db: String, cbir: CommandRunner, in folder: String) throws -> [String] {
        guard db.hasPrefix("postgres://") else { return try lines(db) }
        let file = folder + "/" + (db.split(separator: "/").last.map(String.init) ?? "copy") + "-contents.sqlite"
        try? FileManager.default.removeItem(atPath: file)
        let copied = try cbir.run(["copy", "--from", db, "--to", file])
        try #require(copied.status == 0, "\(copied.standardError)")
        return try lines(file)
    }

    /// How two catalogs' lines differ: their counts and the first lines either lacks, shortened.
    static func difference(_ one: [String], _ other: [String]) -> String {
        let differing = Set(one).symmetricDifference(other).sorted().prefix(4).map { $0.prefix(160) }
        return "\(one.count) and \(other.count) lines; differing: \(differing.joined(separator: "\n"))"
    }

    /// A print's little-endian Float32 bytes as Float16 ones, in hex.
    private static func halfPrecision(_ bytes: Data?) -> String {
        guard let bytes else { return "-" }
        let values = bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 4).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
            }
        }
        return values.map { String(format: "%04x", Float16($0).bitPattern) }.joined()
    }
}
