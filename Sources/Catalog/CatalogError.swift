import Foundation
import GRDB

/// Why a database operation failed. Image problems met while indexing are not errors of this kind:
/// they are recorded with the image and indexing goes on.
public enum CatalogError: Error, Sendable, CustomStringConvertible {
    /// The database file could not be opened, migrated, read or written.
    case storage(path: String, reason: String)
    /// The database server could not be reached, or the connection to it was lost: nothing of the unfinished
    /// transaction was kept, and trying again later may work (a server restarting, a network gone for a while).
    case unreachable(path: String, reason: String)
    /// The database cannot be written: its permissions, an immutable flag, a read-only file system. Reading
    /// commands open it read-only and work.
    case readOnly(path: String)
    /// SQLite found the file damaged. Nothing more is written into it; `recovery` says how to start afresh.
    case damaged(path: String, reason: String)
    /// A damaged database whose rows cannot be found to be saved (its schema, SQLite's list of tables and
    /// where they start, is what is damaged). Nothing was changed.
    case unrepairable(path: String, reason: String)
    /// Another process kept the database locked for longer than writers wait.
    case busy(path: String)
    /// Other workers index the folder with another build or other analyses: this worker's rows would be of
    /// another kind, so it does not join them.
    case refusedWorker(folder: String, reason: String)
    /// The folder to index cannot be read.
    case unreadableFolder(path: String, reason: String)
    /// No such face or image in the database.
    case notFound(String)
    /// The stored descriptors and the probe's were made with different parameters.
    case mismatch(String)
    /// A query that cannot be asked as given.
    case invalidQuery(String)
    /// A name people cannot be given (see ``PersonName``).
    case invalidName(name: String, reason: String)
    /// A probe photo that cannot be read, has no face, or not the one asked for.
    case probe(path: String, reason: String)
    /// Detection, description or search failed on the device.
    case processing(String)

    public var description: String {
        switch self {
        case .storage(let path, let reason), .unreachable(let path, let reason): "\(path): database error: \(reason)"
        case .readOnly(let path): "the database is read-only: \(path)"
        case .damaged(let path, let reason): "\(path): the database is damaged (\(reason)). \(Self.recovery(path))"
        case .unrepairable(let path, let reason):
            """
            \(path): the database cannot be repaired: \(reason). Nothing was changed. Index the photos again into a \
            new database (`cbir index <folder> --db <new file>`), or put back a copy of the file.
            """
        case .busy(let path):
            "\(path): another process has kept the database locked for \(Int(Catalog.busyTimeout)) s; try again later"
        case .unreadableFolder(let path, let reason): "\(path): cannot index: \(reason)"
        case .refusedWorker(let folder, let reason): "\(folder): this worker does not join the others: \(reason)"
        case .notFound(let what): "not found: \(what)"
        case .mismatch(let reason): "descriptor mismatch: \(reason)"
        case .invalidQuery(let reason): "invalid query: \(reason)"
        case .invalidName(let name, let reason): "not a name: \(Self.quoted(name)): \(reason)"
        case .probe(let path, let reason): reason.hasPrefix(path) ? reason : "\(path): \(reason)"
        case .processing(let reason): reason
        }
    }
}

extension CatalogError {
    /// A name in quotes, a long one by its start.
    private static func quoted(_ name: String) -> String {
        name.count > 40 ? name.prefix(40).debugDescription.dropLast() + "…\"" : name.debugDescription
    }

    /// An error met on the database at `path`, in a few words: SQLite's own message without the statement
    /// (which can list thousands of row ids), damage, read-only files and locks told apart.
    static func storage(_ error: any Error, path: String) -> CatalogError {
        if let error = error as? CatalogError { return error }
        if let damage = error as? StoreDamage { return .damaged(path: path, reason: damage.reason) }
        guard let error = error as? GRDB.DatabaseError else { return .storage(path: path, reason: "\(error)") }
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_CORRUPT: return .damaged(path: path, reason: message)
        // Not SQLite's at all (a photo given as --db, say): nothing a repair could save.
        case .SQLITE_NOTADB: return .storage(path: path, reason: "no database: SQLite finds none in the file")
        case .SQLITE_READONLY: return .readOnly(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy(path: path)
        default: return .storage(path: path, reason: message)
        }
    }

    /// How to get a working database back from a damaged one.
    public static func recovery(_ path: String) -> String {
        """
        To recover: `cbir check --repair --db \(path)` saves what can still be read (photos, faces, people and \
        their names) \
        into a new database in its place.
        """
    }
}

/// Damage a statement found in what a store holds (a row the catalog's own triggers keep, missing): the
/// catalog reports it as ``CatalogError/damaged(path:reason:)`` of the store it read.
struct StoreDamage: Error {
    let reason: String
}
