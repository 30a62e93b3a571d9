import Foundation

/// Every row the catalog holds for one photo (``CatalogTable/ofImage``: its image row, faces, their
/// descriptors and embeddings, its print, and the people its faces belong to), kept in the journal while
/// the photo is moved aside so that an undo puts them back as they were: names, people and prints with them.
struct PhotoRows: Sendable, Codable, Equatable {
    /// Each table's rows, by the table's name, in its columns' order.
    var tables: [String: [[StoreValue]]]

    /// The rows of image `image` as they are now.
    static func of(image: Int64, _ connection: any StoreConnection) throws -> PhotoRows {
        var tables: [String: [[StoreValue]]] = [:]
        for table in CatalogTable.all {
            guard let condition = table.ofImage else { continue }
            tables[table.name] = try connection.rows(
                "SELECT \(table.columnList) FROM \(table.name) WHERE \(condition) ORDER BY \(table.key)",
                [.integer(image)]
            ).map { row throws(CatalogError) in try table.normalised(row.values) }
        }
        return PhotoRows(tables: tables)
    }

    /// Puts the rows back, the image and its faces under new keys (a store copied since may have handed the
    /// old ones out again), and returns the image's new id. A person gone since (emptied and forgotten) comes
    /// back under its id; one whose name another person has taken since gives its faces to that person.
    func restore(_ connection: any StoreConnection) throws -> Int64? {
        var keys: [String: [Int64: Int64]] = ["persons": [:]]
        for person in tables["persons"] ?? [] {
            guard let id = person[0].integer else { continue }
            let existing = try connection.rows("SELECT name FROM persons WHERE id = ?", [.integer(id)]).first
            if existing == nil {
                let named = try connection.integer("SELECT id FROM persons WHERE name = ?", [person[1]])
                if person[1] != .null, let named {
                    keys["persons"]?[id] = named
                    continue
                }
                try connection.execute("INSERT INTO persons (id, name, hidden) VALUES (?, ?, ?)", person)
                keys["persons"]?[id] = id
            } else if existing?.values.first == person[1] {
                keys["persons"]?[id] = id
            }
        }
        /// The tables a column's values are keys of.
        let referenced = ["image_id": "images", "face_id": "faces", "person_id": "persons"]
        for table in CatalogTable.all where table.ofImage != nil && table.name != "persons" {
            let fresh = table.key == "id"
            let columns = fresh ? Array(table.columns.dropFirst()) : table.columns
            let marks = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            for row in tables[table.name] ?? [] {
                let values = zip(table.columns, row).dropFirst(fresh ? 1 : 0).map { column, value in
                    guard let owner = referenced[column.name], let old = value.integer else { return value }
                    return keys[owner]?[old].map(StoreValue.integer) ?? .null
                }
                let statement =
                    "INSERT INTO \(table.name) (\(columns.map(\.name).joined(separator: ", "))) VALUES \(marks)"
                if fresh, let old = row[0].integer {
                    keys[table.name, default: [:]][old] = try connection.integer(statement + " RETURNING id", values)
                } else {
                    try connection.execute(statement, values)
                }
            }
        }
        return tables["images"]?.first?.first?.integer.flatMap { keys["images"]?[$0] }
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(self)
    }

    static func decoded(_ data: Data) throws -> PhotoRows {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(PhotoRows.self, from: data)
    }
}
