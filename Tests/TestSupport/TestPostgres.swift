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
    /// start: its data apart, the same installation and password, at `port` on loopback, or on a test host of
    /// its own at that host's address.
    public struct Instance: Sendable {
        public let name: String
        public let port: Int
        public let host: TestHost?

        public init(_ name: String, port: Int, on host: TestHost? = nil) {
            self.name = name
            self.port = port
            self.host = host
        }

        public func start() throws { _ = try script(["start"]) }
        public func stop() throws { _ = try script(["stop"]) }

        /// The URL of a new, empty database `name` on it.
        public func database(_ name: String) throws -> String {
            try script(["database", name]).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Starts a streaming replica of it on `port` (made the first time), on the test host `host` where one
        /// is given (always the same for one port); stops it.
        public func startReplica(port: Int, on host: TestHost? = nil) throws {
            _ = try script(["replica", "start", "\(port)"] + (host.map { [$0.address] } ?? []), on: host ?? self.host)
        }
        public func stopReplica(port: Int) throws { _ = try script(["replica", "stop", "\(port)"]) }

        /// Runs `statement` in database `name` of it, or of its replica on `replica`; what psql prints of its rows.
        @discardableResult
        public func run(_ statement: String, in name: String, replica: Int? = nil) throws -> String {
            let psql = replica.map { ["replica", "psql", "\($0)"] } ?? ["psql"]
            return try script(psql + [name, "--tuples-only", "--no-align", "--command", statement])
        }

        /// `postgres.sh` with `arguments` for this server, on `host` (by default its own).
        private func script(_ arguments: [String], on host: TestHost? = nil) throws -> String {
            var environment = ["FACESEARCH_PG_INSTANCE": name, "FACESEARCH_PG_PORT": "\(port)"]
            if let address = self.host?.address { environment["FACESEARCH_PG_HOST"] = address }
            return try CommandRunner.script("postgres.sh", arguments, environment: environment, on: host ?? self.host)
        }
    }

    private static func script(_ arguments: [String]) throws -> String {
        try CommandRunner.script("postgres.sh", arguments)
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
