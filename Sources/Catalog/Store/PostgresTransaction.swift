import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A PostgreSQL connection inside a transaction: `?` numbered as `$1, $2, …`, every value bound as a parameter
/// (never written into the statement), vectors sent as `real[]` (pgvector casts them to `vector` and `halfvec`
/// where a column is one) and read back from pgvector's binary form.
struct PostgresTransaction: StoreConnection {
    let connection: PostgresConnection
    let vectorTypes: PostgresVectorTypes
    let logger: Logger

    @discardableResult
    func execute(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try run(sql, values).metadata.rows ?? 0
    }

    func rows(_ sql: String, _ values: [StoreValue]) throws -> [StoreRow] {
        let rows = try run(sql, values).rows
        let columns = rows.first.map { $0.map(\.columnName) } ?? []
        return try rows.map { row in StoreRow(columns: columns, values: try row.map(value)) }
    }

    /// The rows come whole from the server, then go to `body`.
    func forEachRow(_ sql: String, _ values: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        for row in try rows(sql, values) { try body(row) }
    }

    func tableExists(_ name: String) throws -> Bool {
        try rows("SELECT to_regclass(?) IS NOT NULL", [.text(name)]).first?.get(0) ?? false
    }

    func keysInserted(table: String, key: String) throws {
        try execute(
            "SELECT setval(pg_get_serial_sequence(?, ?), COALESCE(MAX(\(key)), 0) + 1, false) FROM \(table)",
            [.text(table), .text(key)])
    }

    /// The server's clock, which moves on within a transaction (`now()` stays at its start).
    let clock = "extract(epoch FROM clock_timestamp())::float8"

    let skippingLocked = "FOR UPDATE SKIP LOCKED"

    /// Whether the server closed the connection: a statement sent on it now would never be answered.
    var isClosed: Bool { connection.isClosed }

    private func run(_ sql: String, _ values: [StoreValue]) throws -> PostgresQueryResult {
        guard !connection.isClosed else { throw ConnectionLost() }
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number)
            case .real(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            case .boolean(let flag): binds.append(flag)
            case .vector(let values): binds.append(values)
            }
        }
        return try connection.query(PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds), logger: logger).wait()
    }

    /// A cell as a store value.
    private func value(_ cell: PostgresCell) throws -> StoreValue {
        guard var bytes = cell.bytes else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .text, .varchar, .name: return .text(try cell.decode(String.self))
        case .bytea: return .blob(Data(bytes.readableBytesView))
        case .bool: return .boolean(try cell.decode(Bool.self))
        case vectorTypes.vector where cell.format == .binary: return .vector(try Self.vector(&bytes, half: false))
        case vectorTypes.halfVector where cell.format == .binary: return .vector(try Self.vector(&bytes, half: true))
        default:
            throw CatalogError.storage(
                path: cell.columnName, reason: "a value of PostgreSQL type \(cell.dataType) the catalog does not read")
        }
    }

    /// pgvector's binary form: the length and a reserved word (16 bits each), then big-endian Float32 values
    /// (`vector`) or Float16 ones (`halfvec`).
    private static func vector(_ bytes: inout ByteBuffer, half: Bool) throws -> [Float] {
        guard let length = bytes.readInteger(as: UInt16.self), bytes.readInteger(as: UInt16.self) != nil,
            bytes.readableBytes == Int(length) * (half ? 2 : 4)
        else { throw CatalogError.storage(path: "pgvector", reason: "a vector that is not in pgvector's binary form") }
        return (0..<Int(length)).map { _ in
            half
                ? Float(Float16(bitPattern: bytes.readInteger(as: UInt16.self) ?? 0))
                : Float(bitPattern: bytes.readInteger(as: UInt32.self) ?? 0)
        }
    }

    /// A statement with `?` placeholders as PostgreSQL numbers them; a `?` inside quotes is left alone.
    static func numbered(_ sql: String) -> String {
        var result = "", quote: Character? = nil, number = 0
        result.reserveCapacity(sql.utf8.count + 16)
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// The type identifiers pgvector's types were given in this database (an extension's types have no fixed ones).
struct PostgresVectorTypes: Sendable {
    let vector: PostgresDataType
    let halfVector: PostgresDataType

    /// Before the extension is known to be there: no type is a vector.
    static let none = PostgresVectorTypes(vector: PostgresDataType(0), halfVector: PostgresDataType(0))

    private init(vector: PostgresDataType, halfVector: PostgresDataType) {
        self.vector = vector
        self.halfVector = halfVector
    }

    init(_ connection: some StoreConnection) throws {
        let types = Dictionary(
            try connection.rows(
                "SELECT typname::text, oid::int8 FROM pg_type WHERE typname IN ('vector', 'halfvec')", []
            )
            .compactMap { row -> (String, UInt32)? in
                guard case .text(let name) = row.values[0], let oid = row.values[1].integer else { return nil }
                return (name, UInt32(oid))
            }, uniquingKeysWith: { first, _ in first })
        guard let vector = types["vector"], let halfVector = types["halfvec"] else {
            throw CatalogError.storage(path: "pgvector", reason: "the database has no vector and halfvec types")
        }
        self.init(vector: PostgresDataType(vector), halfVector: PostgresDataType(halfVector))
    }
}

/// A statement not sent because the server had closed the connection.
struct ConnectionLost: Error {}
