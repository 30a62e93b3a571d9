import FaceRecognition
import Foundation

/// A row a query returned: its values, by position or by column name.
public struct StoreRow {
    /// The query's column names, shared by its rows.
    public let columns: [String]
    public let values: [StoreValue]

    /// The value at `index` as a `T`, or an error that names the column and what it held.
    public func get<T: StoreDecodable>(_ index: Int) throws(CatalogError) -> T {
        try T(stored: values[index], column: columns[index])
    }

    /// The value of the column `name` as a `T`.
    public func get<T: StoreDecodable>(_ name: String) throws(CatalogError) -> T {
        guard let index = columns.firstIndex(of: name) else {
            throw .storage(path: name, reason: "no such column among \(columns.joined(separator: ", "))")
        }
        return try get(index)
    }
}

/// A Swift type a stored value reads as.
public protocol StoreDecodable {
    init(stored: StoreValue, column: String) throws(CatalogError)
}

extension StoreDecodable {
    /// The error of a value that is not of this type.
    static func mismatch(_ value: StoreValue, column: String) -> CatalogError {
        .storage(path: column, reason: "holds \(value.kindName), not \(Self.self)")
    }
}

extension Int64: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        guard let value = stored.integer else { throw Self.mismatch(stored, column: column) }
        self = value
    }
}

extension Int: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        self = Int(try Int64(stored: stored, column: column))
    }
}

extension Double: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        switch stored {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: throw Self.mismatch(stored, column: column)
        }
    }
}

extension String: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        guard case .text(let value) = stored else { throw Self.mismatch(stored, column: column) }
        self = value
    }
}

extension Data: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        guard case .blob(let value) = stored else { throw Self.mismatch(stored, column: column) }
        self = value
    }
}

extension Bool: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        self = try Int64(stored: stored, column: column) != 0
    }
}

/// A vector: pgvector's on PostgreSQL, little-endian Float32 bytes on SQLite.
extension [Float]: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        switch stored {
        case .vector(let values): self = values
        case .blob(let bytes) where bytes.count % 4 == 0: self = [Float](littleEndianBytes: bytes)
        default: throw .storage(path: column, reason: "holds \(stored.kindName), not a vector")
        }
    }
}

extension Optional: StoreDecodable where Wrapped: StoreDecodable {
    public init(stored: StoreValue, column: String) throws(CatalogError) {
        self = stored == .null ? nil : try Wrapped(stored: stored, column: column)
    }
}
