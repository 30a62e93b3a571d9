import Foundation

/// A value as a catalog's store holds it, whichever store that is: what statements bind and rows return. A
/// vector is a column of pgvector's on PostgreSQL and little-endian Float32 bytes on SQLite; a flag is a
/// boolean on PostgreSQL and 0 or 1 on SQLite.
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case boolean(Bool)
    case vector([Float])
}

extension StoreValue {
    /// The value as an integer, if it is one (a flag counts as 0 or 1).
    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .boolean(let flag): flag ? 1 : 0
        default: nil
        }
    }

    /// What kind of value this is, for messages (never the value, which can be large).
    var kindName: String {
        switch self {
        case .null: "null"
        case .integer: "an integer"
        case .real: "a real"
        case .text: "text"
        case .blob(let bytes): "\(bytes.count) bytes"
        case .boolean: "a flag"
        case .vector(let values): "a vector of \(values.count)"
        }
    }
}

/// A value kept as it is in the journal of moved photos (``PhotoRows``).
extension StoreValue: Codable {}
