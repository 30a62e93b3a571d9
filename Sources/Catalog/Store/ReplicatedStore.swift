import Foundation
import NIOConcurrencyHelpers

/// A PostgreSQL catalog read from a streaming replica and written on its primary: what a server that many
/// people read keeps off the primary, where indexing writes. A read goes to the replica while it is fresh: it
/// answers, it has replayed every write this process made (so a name just given shows on the next page), and it
/// is no further behind the primary than the primary was ``maximumLag`` seconds ago. Otherwise the read goes to
/// the primary, and a change between the two is said once through `log`; a replica that stops answering is tried
/// again after ``retryAfter`` seconds. Reads never see older rows than this process wrote, whichever server
/// answers them.
final class ReplicatedStore: CatalogStore {
    private let primary: PostgresStore
    private let replica: PostgresStore
    private let log: @Sendable (String) -> Void
    private let state = NIOLockedValueBox(State())

    /// Seconds the replica may be behind the primary before reads go to the primary.
    static let maximumLag: Double = 5
    /// Seconds a replica that did not answer is left alone before it is tried again.
    static let retryAfter: Double = 5
    /// Seconds between checks of how far the replica has come (and between samples of the primary's position).
    static let checkEvery: Double = 0.5

    /// What is known of the two servers' write-ahead logs: positions in bytes.
    private struct State {
        /// The primary's position after this process's latest write: the replica must have replayed it.
        var written: Int64 = 0
        /// The replica's replay position as last read, and when.
        var replayed: Int64 = 0
        var checked: Double = 0
        /// The primary's positions as sampled, oldest first, each with when.
        var samples: [(time: Double, position: Int64)] = []
        /// Until when the replica is left alone, having failed to answer.
        var downUntil: Double = 0
        /// Whether reads went to the replica last time, and why not when they did not.
        var reason: String?
    }

    /// Reads from `replica`, which must be a streaming replica, and writes on `primary`.
    init(primary: PostgresStore, replica: PostgresStore, log: @escaping @Sendable (String) -> Void)
        throws(CatalogError)
    {
        self.primary = primary
        self.replica = replica
        self.log = log
        _ = try Self.position(of: replica, "pg_last_wal_replay_lsn()")
    }

    var location: String { primary.location }
    var vectorIndex: (any VectorIndex)? { primary.vectorIndex }
    var waitsOnRoundTrips: Bool { true }
    var schemaVersion: String { primary.schemaVersion }

    func read<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try reading { store throws(CatalogError) in try store.read(body) }
    }

    func readStatement<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try reading { store throws(CatalogError) in try store.readStatement(body) }
    }

    func write<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        let result = try primary.write(body)
        try noteWrite()
        return result
    }

    /// Records the primary's position after a write, which reads must see.
    private func noteWrite() throws(CatalogError) {
        let position = try Self.position(of: primary, "pg_current_wal_lsn()")
        state.withLockedValue { $0.written = max($0.written, position) }
    }

    /// `read` on the replica where it is fresh, else on the primary (which answers too where the replica fails).
    private func reading<T>(_ read: (PostgresStore) throws(CatalogError) -> T) throws(CatalogError) -> T {
        guard useReplica() else { return try read(primary) }
        do { return try read(replica) } catch {
            guard case .unreachable(_, let reason) = error else { throw error }
            replicaFailed(reason)
            return try read(primary)
        }
    }

    /// Whether the next read may go to the replica, checking how far it has come where that is due.
    private func useReplica() -> Bool {
        let now = Date().timeIntervalSince1970
        let (due, down) = state.withLockedValue { state in
            (state.replayed < state.written || now - state.checked >= Self.checkEvery, now < state.downUntil)
        }
        guard !down else { return false }
        guard due else { return state.withLockedValue { $0.reason == nil } }
        do {
            let primaryPosition = try Self.position(of: primary, "pg_current_wal_lsn()")
            let replayed = try Self.position(of: replica, "pg_last_wal_replay_lsn()")
            let (lag, caughtUp): (String?, Bool) = state.withLockedValue { state in
                state.replayed = replayed
                state.checked = now
                state.samples.append((now, primaryPosition))
                // The newest sample at least the allowed lag old is the position the replica must have reached.
                let old = state.samples.last { now - $0.time >= Self.maximumLag }
                state.samples.removeAll { now - $0.time > Self.maximumLag + 2 * Self.checkEvery }
                let lags = old.map { replayed < $0.position } ?? false
                return (
                    lags ? "is more than \(Int(Self.maximumLag)) s behind the primary" : nil, replayed >= state.written
                )
            }
            switched(to: lag)
            // Until it has replayed this process's latest write (a moment, as a rule), the primary answers.
            return lag == nil && caughtUp
        } catch {
            replicaFailed(error.description)
            return false
        }
    }

    private func replicaFailed(_ reason: String) {
        state.withLockedValue { $0.downUntil = Date().timeIntervalSince1970 + Self.retryAfter }
        switched(to: "does not answer (\(reason))")
    }

    /// Says where reads go now, and why, if that changed: to the replica (nil), or to the primary for `reason`.
    private func switched(to reason: String?) {
        let previous = state.withLockedValue { state in
            defer { state.reason = reason }
            return state.reason
        }
        guard previous != reason else { return }
        if let reason {
            log("reading from the primary \(primary.location): the replica \(replica.location) \(reason)")
        } else {
            log("reading from the replica \(replica.location) again")
        }
    }

    /// A position in a server's write-ahead log, in bytes: `function` is `pg_current_wal_lsn()` on a primary,
    /// `pg_last_wal_replay_lsn()` on a replica (where it is null on a server that is not one).
    private static func position(of store: PostgresStore, _ function: String) throws(CatalogError) -> Int64 {
        let position = try store.readStatement { connection in
            try connection.integer("SELECT (\(function) - '0/0'::pg_lsn)::int8")
        }
        guard let position else {
            throw .storage(path: store.location, reason: "not a streaming replica (it replays no primary's log)")
        }
        return position
    }
}
