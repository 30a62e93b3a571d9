import Foundation
import GRDB

/// A run of indexing over a folder as the catalog remembers it: when it started and finished, and what it
/// did to the files (the counts of ``IndexingProgress``).
public struct IndexingRecord: Sendable, Codable, Equatable {
    public let folder: String
    /// Seconds since 1970.
    public let started: Double
    /// Seconds since 1970; nil while the run goes on, or when it stopped before the end.
    public let finished: Double?
    public let indexed, unchanged, failed, upgraded, removed: Int
}

/// The `indexing_runs` table: a row when a run starts, its counts when it ends.
enum IndexingHistory {
    static let table = "indexing_runs"

    static func createTable(_ db: Database) throws {
        try db.create(table: table) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("folder", .text).notNull()
            t.column("started", .double).notNull()
            t.column("finished", .double)
            for count in ["indexed", "unchanged", "failed", "upgraded", "removed"] {
                t.column(count, .integer).notNull().defaults(to: 0)
            }
        }
    }

    /// Records a run over `folder` starting now; returns its id.
    static func start(folder: String, _ connection: any StoreConnection) throws -> Int64 {
        try connection.rows(
            "INSERT INTO \(table) (folder, started) VALUES (?, ?) RETURNING id",
            [.text(folder), .real(Date().timeIntervalSince1970)]
        ).first?.get(0) ?? -1
    }

    /// Records the end of run `id` and what it did.
    static func finish(_ id: Int64, _ result: IndexingProgress, _ connection: any StoreConnection) throws {
        try connection.execute(
            """
            UPDATE \(table) SET finished = ?, indexed = ?, unchanged = ?, failed = ?, upgraded = ?, removed = ? \
            WHERE id = ?
            """,
            [.real(Date().timeIntervalSince1970)]
                + [result.indexed, result.unchanged, result.failed, result.upgraded, result.removed].map {
                    .integer(Int64($0))
                } + [.integer(id)])
    }
}

extension Catalog {
    /// The latest run of indexing, if any.
    public nonisolated func lastIndexingRun() throws(CatalogError) -> IndexingRecord? {
        try reading { connection in
            try connection.rows("SELECT * FROM \(IndexingHistory.table) ORDER BY id DESC LIMIT 1", []).first.map {
                row throws(CatalogError) in
                IndexingRecord(
                    folder: try row.get("folder"), started: try row.get("started"), finished: try row.get("finished"),
                    indexed: try row.get("indexed"), unchanged: try row.get("unchanged"), failed: try row.get("failed"),
                    upgraded: try row.get("upgraded"), removed: try row.get("removed"))
            }
        }
    }
}
