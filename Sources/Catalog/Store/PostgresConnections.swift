import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PostgresNIO

/// A process's connections to one PostgreSQL server, each lent to one transaction at a time: the first made on
/// opening, more only while transactions overlap (a server's requests), up to ``maximum``; a transaction beyond
/// that waits for one to come back. A connection the server closed is dropped, and the next transaction makes a
/// new one.
final class PostgresConnections: Sendable {
    /// The most connections a process holds: enough that a transaction waiting on the network or on a lock
    /// does not hold up a server's other requests, and far fewer than PostgreSQL's default 100 a server.
    static let maximum = 8

    private let configuration: PostgresConnection.Configuration
    private let idle: NIOLockedValueBox<[PostgresConnection]>
    private let turns = DispatchSemaphore(value: maximum)
    private let logger: Logger

    /// Connects once, so that a server that is not there is said at once.
    init(configuration: PostgresConnection.Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        idle = NIOLockedValueBox([try Self.connect(configuration, logger: logger)])
    }

    /// Closes the connections, which live until they are closed.
    deinit {
        for connection in idle.withLockedValue({ $0 }) {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Runs `body` with a connection of its own.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        turns.wait()
        defer { turns.signal() }
        let connection =
            try idle.withLockedValue { idle in
                idle.removeAll(where: \.isClosed)
                return idle.popLast()
            } ?? Self.connect(configuration, logger: logger)
        defer {
            if !connection.isClosed { idle.withLockedValue { $0.append(connection) } }
        }
        return try body(connection)
    }

    private static func connect(_ configuration: PostgresConnection.Configuration, logger: Logger) throws
        -> PostgresConnection
    {
        try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
        ).wait()
    }
}
