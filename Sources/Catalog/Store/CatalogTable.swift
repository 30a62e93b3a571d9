import FaceRecognition
import Foundation
import PhotoSimilarity

/// One of a catalog's tables as every store has it: its columns, what kind of value each holds, and the key its
/// rows are ordered by. Copying a catalog and checking the copy read the tables through this.
struct CatalogTable: Sendable {
    /// What a column holds, whatever type a store gives it.
    enum Kind: Sendable, Equatable {
        case integer, real, text, blob, boolean
        /// A vector of `length` values, stored at full (Float32) or half (Float16) precision on PostgreSQL.
        case vector(length: Int, halfPrecision: Bool)
    }

    struct Column: Sendable {
        let name: String
        let kind: Kind
    }

    let name: String
    /// The columns, the primary key (an integer) first.
    let columns: [Column]
    /// Which of its rows belong to an image (the image's id bound to `?`), for a table whose rows go with
    /// a photo moved aside and come back with it (``PhotoRows``); nil for the others.
    let ofImage: String?

    init(_ name: String, _ columns: [(String, Kind)], ofImage: String? = nil) {
        self.name = name
        self.columns = columns.map(Column.init)
        self.ofImage = ofImage
    }

    /// The integer column the rows are ordered and paged by: the table's primary key.
    var key: String { columns[0].name }

    /// The columns, comma-separated, for a statement.
    var columnList: String { columns.map(\.name).joined(separator: ", ") }

    /// A row as this table holds it, from whichever store it was read: vectors as vectors, flags as flags.
    /// Throws where a value cannot be one of its column (a vector of the wrong length, say).
    func normalised(_ row: [StoreValue]) throws(CatalogError) -> [StoreValue] {
        guard row.count == columns.count else {
            throw .storage(path: name, reason: "a row of \(row.count) values, not \(columns.count)")
        }
        var normalised: [StoreValue] = []
        normalised.reserveCapacity(row.count)
        for (value, column) in zip(row, columns) {
            normalised.append(try column.normalised(value, table: name))
        }
        return normalised
    }

    /// A normalised row as a store that keeps this table's half-precision vectors would give it back.
    func atStoredPrecision(_ row: [StoreValue]) -> [StoreValue] {
        zip(row, columns).map { value, column in
            guard case .vector(_, true) = column.kind, case .vector(let values) = value else { return value }
            return .vector(values.map { Float(Float16($0)) })
        }
    }
}

extension CatalogTable.Column {
    fileprivate func normalised(_ value: StoreValue, table: String) throws(CatalogError) -> StoreValue {
        switch (kind, value) {
        case (_, .null): return .null
        case (.boolean, .integer(let flag)): return .boolean(flag != 0)
        case (.real, .integer(let number)): return .real(Double(number))
        case (.vector(let length, _), .blob(let bytes)) where bytes.count == length * 4:
            return .vector([Float](littleEndianBytes: bytes))
        case (.vector(let length, _), .vector(let values)) where values.count == length: return value
        case (.integer, .integer), (.real, .real), (.text, .text), (.blob, .blob), (.boolean, .boolean): return value
        default: throw .storage(path: table, reason: "column \(name) holds \(value.kindName), not \(kind)")
        }
    }
}

extension CatalogTable {
    /// Every table of a catalog's, each after the tables its rows refer to.
    static let all: [CatalogTable] = [
        CatalogTable(
            "persons", [("id", .integer), ("name", .text), ("hidden", .boolean)],
            ofImage: "id IN (SELECT person_id FROM faces WHERE image_id = ?)"),
        CatalogTable(
            "images",
            [
                ("id", .integer), ("path", .text), ("size", .integer), ("modified", .real), ("hash", .text),
                ("width", .integer), ("height", .integer), ("status", .text), ("error", .text),
            ], ofImage: "id = ?"),
        CatalogTable(
            "faces",
            [
                ("id", .integer), ("image_id", .integer), ("x", .integer), ("y", .integer), ("width", .integer),
                ("height", .integer), ("angle", .real), ("left_eye_x", .real), ("left_eye_y", .real),
                ("right_eye_x", .real), ("right_eye_y", .real), ("neighbours", .integer), ("thumbnail", .blob),
                ("person_id", .integer), ("assignment", .text),
            ], ofImage: "image_id = ?"),
        CatalogTable(
            "face_descriptors", [("face_id", .integer), ("parameters", .text), ("descriptor", .blob)],
            ofImage: facesOfImage),
        CatalogTable(
            "face_embeddings",
            [("face_id", .integer), ("embedding", .vector(length: FaceEmbedder.length, halfPrecision: false))],
            ofImage: facesOfImage),
        CatalogTable(
            "photo_prints",
            [
                ("image_id", .integer), ("print", .vector(length: PhotoPrinter.length, halfPrecision: true)),
                ("hash", .integer), ("sharpness", .real), ("classes", .blob),
            ], ofImage: "image_id = ?"),
        CatalogTable(
            "indexing_runs",
            [
                ("id", .integer), ("folder", .text), ("started", .real), ("finished", .real), ("indexed", .integer),
                ("unchanged", .integer), ("failed", .integer), ("upgraded", .integer), ("removed", .integer),
            ]),
        CatalogTable(
            "library_roots", [("id", .integer), ("library", .text), ("machine", .text), ("folder", .text)]),
        CatalogTable(
            CleanupJournal.runs,
            [
                ("id", .integer), ("machine", .text), ("destination", .text), ("started", .real), ("finished", .real),
                ("undone", .real),
            ]),
        CatalogTable(
            CleanupJournal.moves,
            [
                ("id", .integer), ("run_id", .integer), ("image_id", .integer), ("photo", .text), ("source", .text),
                ("destination", .text), ("trash_info", .text), ("keeper", .text), ("size", .integer),
                ("hash", .text), ("state", .text), ("note", .text), ("rows", .blob),
            ]),
    ]

    private static let facesOfImage = "face_id IN (SELECT id FROM faces WHERE image_id = ?)"
}
