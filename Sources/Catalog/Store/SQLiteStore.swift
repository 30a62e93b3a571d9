import FaceRecognition
import Foundation
import GRDB

/// A catalog's SQLite file as a ``CatalogStore``: the catalog's own connections (WAL: reads beside a write).
struct SQLiteStore: CatalogStore {
    let pool: any DatabaseWriter
    let location: String
    /// None: the device galleries search every vector, faster here than any index SQLite could keep.
    var vectorIndex: (any VectorIndex)? { nil }
    var waitsOnRoundTrips: Bool { false }
    var schemaVersion: String { CatalogSchema.migrator().migrations.last ?? "" }

    func read<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        do { return try pool.read { db in try body(SQLiteConnection(db: db)) } } catch {
            throw .storage(error, path: location)
        }
    }

    func write<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        do { return try pool.write { db in try body(SQLiteConnection(db: db)) } } catch {
            throw .storage(error, path: location)
        }
    }

    /// A transaction committed with `synchronous = FULL`: its WAL frames synced before it returns.
    func writeDurably<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
                var result: T?
                try db.inTransaction {
                    result = try body(SQLiteConnection(db: db))
                    return .commit
                }
                guard let result else { throw StoreDamage(reason: "a transaction ended without its result") }
                return result
            }
        } catch {
            throw .storage(error, path: location)
        }
    }
}

/// A SQLite connection inside a transaction: vectors bound as little-endian Float32 bytes, flags as 0 or 1.
struct SQLiteConnection: StoreConnection {
    let db: Database

    @discardableResult
    func execute(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try db.execute(sql: sql, arguments: Self.arguments(values))
        return db.changesCount
    }

    func rows(_ sql: String, _ values: [StoreValue]) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try forEachRow(sql, values) { rows.append($0) }
        return rows
    }

    func forEachRow(_ sql: String, _ values: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        let statement = try db.makeStatement(sql: sql)
        let columns = statement.columnNames
        let rows = try Row.fetchCursor(statement, arguments: Self.arguments(values))
        while let row = try rows.next() {
            try body(
                StoreRow(
                    columns: columns,
                    values: row.databaseValues.map { value in
                        switch value.storage {
                        case .null: .null
                        case .int64(let number): .integer(number)
                        case .double(let number): .real(number)
                        case .string(let text): .text(text)
                        case .blob(let bytes): .blob(bytes)
                        }
                    }))
        }
    }

    func tableExists(_ name: String) throws -> Bool { try db.tableExists(name) }

    /// SQLite's keys (`AUTOINCREMENT`) already follow the largest one inserted.
    func keysInserted(table: String, key: String) throws {}

    let clock = "((julianday('now') - 2440587.5) * 86400.0)"

    /// One writer at a time holds the whole file: nothing it picks is held by another.
    let skippingLocked = ""

    private static func arguments(_ values: [StoreValue]) -> StatementArguments {
        StatementArguments(
            values.map { value -> DatabaseValue in
                switch value {
                case .null: .null
                case .integer(let number): number.databaseValue
                case .real(let number): number.databaseValue
                case .text(let text): text.databaseValue
                case .blob(let bytes): bytes.databaseValue
                case .boolean(let flag): flag.databaseValue
                case .vector(let values): values.littleEndianBytes.databaseValue
                }
            })
    }
}
