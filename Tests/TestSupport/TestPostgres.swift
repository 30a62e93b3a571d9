import Foundation
import Testing

/// The PostgreSQL server `scripts/postgres.sh start` runs on loopback, for the tests of the catalog on
/// PostgreSQL: each test makes a database of its own there. Where none runs, those tests are skipped and say why.
public enum TestPostgres {
    /// Whether the server runs here.
    public static let isRunning: Bool = (try? script(["status"])) != nil

    /// Why the tests that need the server are skipped where it does not run.
    public static let absence = "no PostgreSQL server runs here (bash scripts/postgres.sh start starts one)"

    /// The environment a `cbir` run needs for the server's password.
    public static let environment = [
        "PGPASSFILE": (ProcessInfo.processInfo.environment["FACESEARCH_PG_ROOT"] ?? "/var/lib/facesearch-postgres")
            + "/pgpass"
    ]

    /// The URL of a new, empty database `name` (one of that name is dropped first).
    public static func database(_ name: String) throws -> String {
        try script(["database", name]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `statement` in database `name`; returns what psql prints of its rows.
    @discardableResult
    public static func run(_ statement: String, in name: String) throws -> String {
        try script(["psql", name, "--tuples-only", "--no-align", "--command", statement])
    }

    /// How many scans the index `index` of database `name` has served: once more than `after` where that is
    /// given, waiting up to two seconds for the server to count a finished process's scans.
    public static func indexScans(_ index: String, in name: String, after: Int? = nil) throws -> Int {
        var scans = 0
        for _ in 0..<20 {
            let text = try run(
                "SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE indexrelname = '\(index)'", in: name)
            scans = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            guard let after, scans <= after else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return scans
    }

    /// A server of a test's own beside the shared one (`FACESEARCH_PG_INSTANCE`), which the test may stop and
    /// start: its data apart, the same installation and password, on loopback at `port`.
    public struct Instance: Sendable {
        public let name: String
        public let port: Int

        public init(_ name: String, port: Int) {
            self.name = name
            self.port = port
        }

        public func start() throws { _ = try script(["start"], instance: self) }
        public func stop() throws { _ = try script(["stop"], instance: self) }

        /// The URL of a new, empty database `name` on it.
        public func database(_ name: String) throws -> String {
            try script(["database", name], instance: self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Starts a streaming replica of it on `port` (made the first time); stops it.
        public func startReplica(port: Int) throws { _ = try script(["replica", "start", "\(port)"], instance: self) }
        public func stopReplica(port: Int) throws { _ = try script(["replica", "stop", "\(port)"], instance: self) }

        /// Runs `statement` in database `name` of it, or of its replica on `replica`; what psql prints of its rows.
        @discardableResult
        public func run(_ statement: String, in name: String, replica: Int? = nil) throws -> String {
            let psql = replica.map { ["replica", "psql", "\($0)"] } ?? ["psql"]
            return try script(
                psql + [name, "--tuples-only", "--no-align", "--command", statement], instance: self)
        }
    }

    private static func script(_ arguments: [String], instance: Instance? = nil) throws -> String {
        let environment = instance.map { ["FACESEARCH_PG_INSTANCE": $0.name, "FACESEARCH_PG_PORT": "\($0.port)"] }
        let output = try CommandRunner(executable: URL(fileURLWithPath: "/bin/bash")).run(
            [Repository.root + "/scripts/postgres.sh"] + arguments, environment: environment ?? [:])
        guard output.status == 0 else { throw ScriptFailure(description: output.standardError) }
        return output.standardOutput
    }

    struct ScriptFailure: Error, CustomStringConvertible {
        let description: String
    }
}

/// The stores a catalog's test runs on: the same test on a SQLite file and on a PostgreSQL database.
public enum TestStore: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }

    /// A new, empty catalog for a test called `name`: a file in `folder`, or a database of its own on the
    /// test server (whose password `cbir` then finds through `PGPASSFILE`). Where no server runs, the
    /// PostgreSQL case is cancelled, saying why.
    public func catalog(in folder: String, name: String) throws -> String {
        switch self {
        case .sqlite: return folder + "/cbir.sqlite"
        case .postgres:
            guard TestPostgres.isRunning else { try Test.cancel(Comment(rawValue: TestPostgres.absence)) }
            for (name, value) in TestPostgres.environment { setenv(name, value, 0) }
            let suffix = UUID().uuidString.prefix(8).lowercased()
            return try TestPostgres.database("cbir_test_\(name.lowercased())_\(suffix)")
        }
    }
}
