import Foundation

/// Why a database operation failed. Image problems met while indexing are not errors of this kind:
/// they are recorded with the image and indexing goes on.
public enum DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The database file could not be opened, migrated, read or written.
    case storage(path: String, reason: String)
    /// The folder to index cannot be read.
    case unreadableFolder(path: String, reason: String)
    /// No such face or image in the database.
    case notFound(String)
    /// The stored descriptors and the probe's were made with different parameters.
    case mismatch(String)
    /// A query that cannot be asked as given.
    case invalidQuery(String)
    /// A probe photo that cannot be read, has no face, or not the one asked for.
    case probe(path: String, reason: String)
    /// Detection, description or search failed on the device.
    case processing(String)

    public var description: String {
        switch self {
        case .storage(let path, let reason): "\(path): database error: \(reason)"
        case .unreadableFolder(let path, let reason): "\(path): cannot index: \(reason)"
        case .notFound(let what): "not found: \(what)"
        case .mismatch(let reason): "descriptor mismatch: \(reason)"
        case .invalidQuery(let reason): "invalid query: \(reason)"
        case .probe(let path, let reason): "\(path): \(reason)"
        case .processing(let reason): reason
        }
    }
}
