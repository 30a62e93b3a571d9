import Foundation
import GRDB

/// A face's name as exported: its photo's path and its box, which find the face again in a database
/// indexed anew from the same photos.
public struct FaceLabel: Sendable, Codable, Equatable {
    public let path: String
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int
    public let label: String

    public init(path: String, x: Int, y: Int, width: Int, height: Int, label: String) {
        (self.path, self.x, self.y, self.width, self.height, self.label) = (path, x, y, width, height, label)
    }

    /// How label files are written: pretty, keys sorted, slashes as they are.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Intersection over union of this box and another.
    func overlap(x: Int, y: Int, width: Int, height: Int) -> Double {
        let across = max(0, min(self.x + self.width, x + width) - max(self.x, x))
        let down = max(0, min(self.y + self.height, y + height) - max(self.y, y))
        let union = self.width * self.height + width * height - across * down
        return union > 0 ? Double(across * down) / Double(union) : 0
    }
}

extension CBIRDatabase {
    /// Rows read at a time when a damaged file makes the whole-table read fail.
    static let labelChunk: Int64 = 256

    /// The named faces (through their people) with their photos' paths and boxes; callers add conditions
    /// with `AND`.
    static let labelledFaces = """
        SELECT path, x, y, faces.width, faces.height, name AS label FROM faces JOIN images ON images.id = image_id
        JOIN persons ON persons.id = person_id WHERE name IS NOT NULL
        """

    /// Rows of `labelledFaces` as labels.
    static func faceLabels(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [FaceLabel] {
        try Row.fetchAll(db, sql: sql, arguments: arguments)
            .map { FaceLabel(path: $0["path"], x: $0["x"], y: $0["y"], width: $0["width"], height: $0["height"], label: $0["label"]) }
    }

    /// Every labelled face with its photo and box, by face id. On a damaged file the faces are read in
    /// chunks and chunks that cannot be read are skipped: `unreadableChunks` counts them.
    public nonisolated func labels() throws(DatabaseError) -> (labels: [FaceLabel], unreadableChunks: Int) {
        do {
            return (try read { db in try Self.faceLabels(db, sql: Self.labelledFaces + " ORDER BY faces.id") }, 0)
        } catch .damaged {
            let last = try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM faces") } ?? 0
            var found: [FaceLabel] = [], unreadable = 0
            for start in stride(from: Int64(0), through: last, by: Int(Self.labelChunk)) {
                do {
                    found += try read { db in
                        try Self.faceLabels(db, sql: Self.labelledFaces + " AND faces.id BETWEEN ? AND ? ORDER BY faces.id",
                                            arguments: [start, start + Self.labelChunk - 1])
                    }
                } catch .damaged {
                    unreadable += 1
                }
            }
            return (found, unreadable)
        }
    }

    /// Names stored faces by exported labels: each goes to the face of its photo whose box overlaps its
    /// box most, if by at least half (intersection over union), which joins the person of that name by
    /// hand. Returns the labels that found no face.
    public func importLabels(_ labels: [FaceLabel]) throws(DatabaseError) -> [FaceLabel] {
        try write { db in
            var unmatched: [FaceLabel] = [], facesByName: [String: [Int64]] = [:]
            for label in labels {
                let faces = try Row.fetchAll(db, sql: """
                    SELECT faces.id, x, y, faces.width, faces.height FROM faces JOIN images ON images.id = image_id WHERE path = ?
                    """, arguments: [label.path])
                let best = faces.map { row in
                    (id: row["id"] as Int64, overlap: label.overlap(x: row["x"], y: row["y"], width: row["width"], height: row["height"]))
                }.max { $0.overlap < $1.overlap }
                guard let best, best.overlap >= 0.5 else {
                    unmatched.append(label)
                    continue
                }
                facesByName[label.label, default: []].append(best.id)
            }
            for (name, faces) in facesByName.sorted(by: { $0.key < $1.key }) {
                try Self.assignByHand(faces, to: try Self.person(named: name, db), db)
            }
            return unmatched
        }
    }
}
