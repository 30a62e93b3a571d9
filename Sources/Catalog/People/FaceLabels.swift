import Foundation

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

    var box: Catalog.FaceBox { (x, y, width, height) }
}

extension Catalog {
    /// A face's box in its photo's own pixels.
    typealias FaceBox = (x: Int, y: Int, width: Int, height: Int)

    /// Of the faces stored for the photo at `path`, the one whose box overlaps `box` most, if by at least
    /// half (intersection over union): how a face is found again after its photo was indexed anew.
    static func face(at path: String, overlapping box: FaceBox, _ connection: any StoreConnection) throws -> Int64? {
        let faces = try connection.rows(
            """
            SELECT faces.id, x, y, faces.width, faces.height FROM faces JOIN images ON images.id = image_id WHERE \
            path = ?
            """, [.text(path)]
        ).map { row throws(CatalogError) -> (id: Int64, box: FaceBox) in
            (try row.get(0), (try row.get(1), try row.get(2), try row.get(3), try row.get(4)))
        }
        func overlap(_ face: (id: Int64, box: FaceBox)) -> Double {
            let (x, y, width, height) = face.box
            let across = max(0, min(box.x + box.width, x + width) - max(box.x, x))
            let down = max(0, min(box.y + box.height, y + height) - max(box.y, y))
            let union = box.width * box.height + width * height - across * down
            return union > 0 ? Double(across * down) / Double(union) : 0
        }
        guard let best = faces.max(by: { overlap($0) < overlap($1) }), overlap(best) >= 0.5 else { return nil }
        return best.id
    }

    /// Rows read at a time when a damaged file makes the whole-table read fail.
    static let labelChunk: Int64 = 256

    /// The named faces (through their people) with their photos' paths and boxes; callers add conditions
    /// with `AND`.
    static let labelledFaces = """
        SELECT path, x, y, faces.width, faces.height, name AS label FROM faces JOIN images ON images.id = image_id
        JOIN persons ON persons.id = person_id WHERE name IS NOT NULL
        """

    /// Rows of `labelledFaces` as labels.
    nonisolated func faceLabels(_ connection: any StoreConnection, sql: String, arguments: [StoreValue] = []) throws
        -> [FaceLabel]
    {
        try connection.rows(sql, arguments).map { row throws(CatalogError) in
            FaceLabel(
                path: localPath(try row.get(0)), x: try row.get(1), y: try row.get(2), width: try row.get(3),
                height: try row.get(4), label: try row.get(5))
        }
    }

    /// Every labelled face with its photo and box, by face id. On a damaged file the faces are read in
    /// chunks and chunks that cannot be read are skipped: `unreadableChunks` counts them.
    public nonisolated func labels() throws(CatalogError) -> (labels: [FaceLabel], unreadableChunks: Int) {
        do {
            return (
                try readingStatement { connection in
                    try faceLabels(connection, sql: Self.labelledFaces + " ORDER BY faces.id")
                }, 0
            )
        } catch .damaged {
            let last = try readingStatement { connection in try connection.integer("SELECT MAX(id) FROM faces") } ?? 0
            var found: [FaceLabel] = [], unreadable = 0
            for start in stride(from: Int64(0), through: last, by: Int(Self.labelChunk)) {
                do {
                    found += try readingStatement { connection in
                        try faceLabels(
                            connection, sql: Self.labelledFaces + " AND faces.id BETWEEN ? AND ? ORDER BY faces.id",
                            arguments: [.integer(start), .integer(start + Self.labelChunk - 1)])
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
    /// hand. Returns the labels that found no face. A label that is not a name (``PersonName``) refuses
    /// them all.
    public func importLabels(_ labels: [FaceLabel]) throws(CatalogError) -> [FaceLabel] {
        let names = try labels.map { label throws(CatalogError) in try PersonName.stored(label.label) }
        return try writing { connection in
            var unmatched: [FaceLabel] = [], facesByName: [String: [Int64]] = [:]
            for (label, name) in zip(labels, names) {
                guard let face = try Self.face(at: label.path, overlapping: label.box, connection) else {
                    unmatched.append(label)
                    continue
                }
                facesByName[name, default: []].append(face)
            }
            for (name, faces) in facesByName.sorted(by: { $0.key < $1.key }) {
                try Self.assignByHand(faces, to: try Self.personMade(named: name, connection), connection)
            }
            return unmatched
        }
    }
}
