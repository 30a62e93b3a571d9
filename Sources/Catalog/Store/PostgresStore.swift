import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// A catalog in a PostgreSQL database with pgvector, its transactions each on a connection of its own
/// (``PostgresConnections``). Opening it checks the server (it answers, takes the password, has pgvector 0.8 or
/// later) and brings the catalog's tables up to date (``PostgresSchema``); each failure is said in one sentence
/// that names the server.
final class PostgresStore: CatalogStore {
    let location: String
    /// A reader's writes are refused, as a read-only SQLite file refuses them.
    private let access: Catalog.Access
    private let connections: PostgresConnections
    private let vectorTypes: PostgresVectorTypes
    let vectorIndex: (any VectorIndex)? = PgvectorIndex()
    let waitsOnRoundTrips = true
    var schemaVersion: String { PostgresSchema.migrations.last?.identifier ?? "" }
    private static let logger = Logger(label: "facesearch.catalog.postgres") { _ in SwiftLogNoOpLogHandler() }

    /// Connects to the catalog at `url` for `access`: a reader needs its tables up to date, a writer makes them.
    init(_ url: PostgresLocation, access: Catalog.Access) throws(CatalogError) {
        location = url.description
        self.access = access
        do {
            let configuration = try url.connectionConfiguration()
            connections = try PostgresConnections(configuration: configuration, logger: Self.logger)
            vectorTypes = try connections.withConnection { connection in
                let unprepared = PostgresTransaction(connection: connection, vectorTypes: .none, logger: Self.logger)
                try PostgresSchema.prepare(unprepared, access: access, location: url)
                return try PostgresVectorTypes(unprepared)
            }
        } catch {
            throw Self.failure(error, at: url)
        }
    }

    func read<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// Without BEGIN and COMMIT, a round trip each: the statement alone is its own transaction.
    func readStatement<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try transaction(nil) { connection in try body(OneStatement(connection, at: location)) }
    }

    func write<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        guard access == .readWrite else { throw .readOnly(path: location) }
        return try transaction("BEGIN", body)
    }

    /// `body` between `begin` and COMMIT, or alone where `begin` is nil.
    private func transaction<T>(_ begin: String?, _ body: (any StoreConnection) throws -> T) throws(CatalogError)
        -> T
    {
        do {
            return try connections.withConnection { connection in
                let connection = PostgresTransaction(
                    connection: connection, vectorTypes: vectorTypes, logger: Self.logger)
                guard let begin else { return try body(connection) }
                try connection.execute(begin, [])
                do {
                    let result = try body(connection)
                    try connection.execute("COMMIT", [])
                    return result
                } catch {
                    if !connection.isClosed { _ = try? connection.execute("ROLLBACK", []) }
                    throw error
                }
            }
        } catch let error as CatalogError {
            throw error
        } catch let damage as StoreDamage {
            throw .damaged(path: location, reason: damage.reason)
        } catch  where Self.isUnreachable(error) {
            throw .unreachable(path: location, reason: Self.reason(error))
        } catch {
            throw .storage(path: location, reason: Self.reason(error))
        }
    }

    /// Whether `error` says the server could not be reached or the connection was lost (the server shut down or
    /// restarting, the network gone), rather than that it refused what was asked: what is worth trying again.
    static func isUnreachable(_ error: any Error) -> Bool {
        if error is ConnectionLost || error is NIOConnectionError || error is IOError || error is ChannelError {
            return true
        }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        default:
            // Class 08, connection exceptions; 57P01-57P03, the server shutting down or starting up.
            let state = error.serverInfo?[.sqlState] ?? ""
            return error.serverInfo?[.severity] == "FATAL" || state.hasPrefix("08") || state.hasPrefix("57P")
        }
    }

    /// A failure to reach or use the server at `url`, in one sentence: down, refusing the password or the user,
    /// no such database, no TLS where it was required. Never the password.
    static func failure(_ error: any Error, at url: PostgresLocation) -> CatalogError {
        if let error = error as? CatalogError { return error }
        let place = url.description
        guard let error = error as? PSQLError else { return .storage(path: place, reason: reason(error)) }
        if let underlying = error.underlying,
            underlying is NIOSSLError || underlying is BoringSSLError || underlying is NIOSSLExtraError
        {
            let authorities =
                url.trustedCertificates.map { "the authorities in \($0)" } ?? "an authority this machine trusts"
            let trust =
                switch url.encryption {
                case .verifyFull:
                    "; sslmode=verify-full accepts only a certificate for \(url.host) that \(authorities) signed"
                case .verifyCA: "; sslmode=verify-ca accepts only a certificate that \(authorities) signed"
                default: ""
                }
            let what =
                (underlying as? NIOSSLExtraError) == .failedToValidateHostname
                ? "its certificate is not for \(url.host)" : describe(underlying)
            return .storage(path: place, reason: "TLS with the server failed (\(what))\(trust)")
        }
        let reason: String
        switch (error.code, error.serverInfo?[.sqlState]) {
        case (_, "28P01"?):
            reason =
                "the server refused the password for user \(url.user) (from the URL, PGPASSWORD or the password file)"
        case (.authMechanismRequiresPassword, _):
            reason =
                """
                the server asks user \(url.user) for a password and none was given (in the URL, PGPASSWORD or \
                ~/.pgpass)
                """
        case (_, "28000"?):
            reason = "the server refused user \(url.user): \(error.serverInfo?[.message] ?? "not allowed")"
        case (_, "3D000"?): reason = "the server has no database \(url.database)"
        case (.sslUnsupported, _): reason = "sslmode=\(url.encryption.rawValue), but the server does not offer TLS"
        case (.server, _): reason = Self.reason(error)
        default:  // the connection was not made, or lost as it was made
            return .unreachable(
                path: place,
                reason:
                    "no PostgreSQL server answers at \(url.host):\(url.port) (\(connectionProblem(error.underlying)))")
        }
        return .storage(path: place, reason: reason)
    }

    /// What went wrong, in the server's words where it said any (PSQLError's own text hides them).
    static func reason(_ error: any Error) -> String {
        let lost = "the connection to the server was lost; nothing of the unfinished transaction was kept"
        if error is ConnectionLost { return lost }
        guard let error = error as? PSQLError else { return describe(error) }
        if let message = error.serverInfo?[.message] {
            // FATAL: the server ends the session (shutting down, or the session was terminated).
            if error.serverInfo?[.severity] == "FATAL" { return "\(lost) (\(message))" }
            return [message, error.serverInfo?[.detail]].compactMap { $0 }.joined(separator: ": ")
        }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return lost
        case .connectionError: return "no server answers (\(connectionProblem(error.underlying)))"
        default: return error.underlying.map(describe) ?? "\(error.code)"
        }
    }

    /// Why a connection was not made, in a few words: the system's reason (connection refused, say), or a
    /// timeout.
    private static func connectionProblem(_ error: (any Error)?) -> String {
        switch error {
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return "the host name is not known"
            }
            return connectionProblem(error.connectionErrors.first?.error)
        case let error as IOError: return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as ChannelError where error == .connectTimeout(.seconds(10)): return "no answer within 10 s"
        case let error?: return describe(error)
        case nil: return "no connection"
        }
    }

    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
