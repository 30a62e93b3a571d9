/// A catalog copied from one store to another (a SQLite file to a PostgreSQL database, say, and back): every
/// table's rows with their keys, so that faces keep their photos, people their faces and names, hidden people
/// their flag. The copy goes into an empty catalog in one transaction and is read back and compared with the
/// original row for row before that transaction is committed: a copy that differs, or fails half-way, leaves
/// the destination as it was. Prints are compared at the half precision PostgreSQL keeps them in.
public enum CatalogCopy {
    /// What a copy moved.
    public struct Report: Sendable, Codable, Equatable {
        /// A table and how many of its rows were copied.
        public struct Table: Sendable, Codable, Equatable {
            public let name: String
            public let rows: Int
        }
        /// Where from and where to (URLs without their passwords).
        public let from: String
        public let to: String
        public let tables: [Table]
    }

    /// Rows read, written (in one statement: under SQLite's 32,766 values) and compared at a time.
    static let pageSize = 500

    /// Copies the catalog at `source` (a SQLite file or a PostgreSQL URL) into the empty one at `destination`,
    /// which is made where there is none.
    public static func copy(from source: String, to destination: String) throws(CatalogError) -> Report {
        let source = try catalogStore(at: source, access: .readOnly)
        let destination = try catalogStore(at: destination, access: .readWrite)
        let tables = try source.read { reader in
            try destination.write { writer in
                let photos = try writer.integer("SELECT COUNT(*) FROM images") ?? 0
                for table in CatalogTable.all where try writer.integer("SELECT COUNT(*) FROM \(table.name)") != 0 {
                    throw CatalogError.storage(
                        path: destination.location,
                        reason:
                            "already holds a catalog (\(counted(photos, "photo")), rows in \(table.name)): "
                            + "copy into an empty one"
                    )
                }
                return try CatalogTable.all.map { table in
                    let rows = try copy(table, from: reader, to: writer)
                    try writer.keysInserted(table: table.name, key: table.key)
                    try compare(table, reader, writer, places: (source.location, destination.location))
                    return Report.Table(name: table.name, rows: rows)
                }
            }
        }
        return Report(from: source.location, to: destination.location, tables: tables)
    }

    /// Copies a table's rows a page at a time; returns how many.
    private static func copy(_ table: CatalogTable, from reader: any StoreConnection, to writer: any StoreConnection)
        throws -> Int
    {
        var count = 0
        let row = "(" + Array(repeating: "?", count: table.columns.count).joined(separator: ", ") + ")"
        try pages(of: table, reader) { rows in
            try writer.execute(
                """
                INSERT INTO \(table.name) (\(table.columnList)) VALUES \
                \(Array(repeating: row, count: rows.count).joined(separator: ", "))
                """, rows.flatMap { $0 })
            count += rows.count
        }
        return count
    }

    /// Reads both stores' rows of a table in key order and throws where they differ.
    private static func compare(
        _ table: CatalogTable, _ reader: any StoreConnection, _ writer: any StoreConnection,
        places: (source: String, destination: String)
    ) throws {
        var compared = 0
        try pages(of: table, reader) { rows in
            let key = rows.first?.first ?? .null
            let copied = try writer.rows(
                "SELECT \(table.columnList) FROM \(table.name) WHERE \(table.key) >= ? ORDER BY \(table.key) LIMIT ?",
                [key, .integer(Int64(rows.count))])
            for (original, copy) in zip(rows, copied)
            where table.atStoredPrecision(original) != table.atStoredPrecision(try table.normalised(copy.values)) {
                throw CatalogError.storage(
                    path: places.destination,
                    reason:
                        "the copy of \(table.name) row \(original.first?.integer ?? 0) differs from \(places.source)'s")
            }
            guard copied.count == rows.count else {
                throw CatalogError.storage(
                    path: places.destination, reason: "the copy of \(table.name) lacks rows of \(places.source)'s")
            }
            compared += rows.count
        }
        guard try writer.integer("SELECT COUNT(*) FROM \(table.name)") == Int64(compared) else {
            throw CatalogError.storage(
                path: places.destination, reason: "the copy of \(table.name) has rows \(places.source) lacks")
        }
    }

    /// A table's rows in key order, normalised, `pageSize` at a time.
    private static func pages(
        of table: CatalogTable, _ connection: any StoreConnection, _ body: ([[StoreValue]]) throws -> Void
    ) throws {
        var after = StoreValue.integer(.min)
        while true {
            let rows = try connection.rows(
                "SELECT \(table.columnList) FROM \(table.name) WHERE \(table.key) > ? ORDER BY \(table.key) LIMIT ?",
                [after, .integer(Int64(pageSize))]
            ).map { row throws(CatalogError) in try table.normalised(row.values) }
            guard let last = rows.last else { return }
            try body(rows)
            after = last[0]
        }
    }
}
