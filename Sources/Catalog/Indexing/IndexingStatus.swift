import Foundation

/// Where the indexing of a folder stands, as its queue (`IndexingQueue`) tells it: its batches done, claimed
/// and by whom, left and failed with why, and each worker's pace. What `cbir index --status` prints.
public struct IndexingStatus: Sendable, Codable, Equatable {
    /// The folder, where it is on this machine.
    public let folder: String
    /// `listing`, `queued` (being indexed), `finished`, or `abandoned` (every worker gone before the end).
    public let state: String
    /// Seconds since 1970.
    public let started: Double
    public let finished: Double?
    /// Files listed (with the entries that are no photos); batches queued, claimed, done and failed, and the
    /// files in the done ones.
    public let files: Int
    public let queued, claimed, done, failed: Int
    public let filesDone: Int
    public let workers: [Worker]
    public let failures: [Failure]

    /// A worker's part: whether it is at work (its lease renewed), the batches it finished, their files, its
    /// pace from its first claim to its last batch, and the batches it holds now.
    public struct Worker: Sendable, Codable, Equatable {
        public let name: String
        public let alive: Bool
        public let batches: Int
        public let files: Int
        public let photosPerSecond: Double
        public let holding: Int
    }

    /// A failed batch: its files and why.
    public struct Failure: Sendable, Codable, Equatable {
        public let batch: Int64
        public let files: Int
        public let reason: String
    }
}

extension Catalog {
    /// Where the indexing of each folder stands, newest first: the job under way or last run of each folder
    /// indexed (only `folder`'s, where it is given).
    public nonisolated func indexingStatus(folder: String? = nil) throws(CatalogError) -> [IndexingStatus] {
        let (jobs, batches) = (IndexingQueue.jobs, IndexingQueue.batches)
        return try reading { connection in
            let filter = folder.map { [StoreValue.text(storedPath($0))] } ?? []
            return try connection.rows(
                "SELECT * FROM \(jobs)\(folder == nil ? "" : " WHERE folder = ?") ORDER BY id DESC", filter
            ).map { job in
                let id: Int64 = try job.get("id")
                var states: [String: (batches: Int, files: Int)] = [:]
                for row in try connection.rows(
                    """
                    SELECT state, COUNT(*), CAST(SUM(count) AS INTEGER) FROM \(batches) WHERE job_id = ? \
                    GROUP BY state
                    """,
                    [.integer(id)])
                {
                    states[try row.get(0)] = (try row.get(1), try row.get(2))
                }
                let workers = try connection.rows(
                    """
                    SELECT name, alive_until > \(connection.clock) AS alive, COALESCE(batches, 0) AS batches, \
                    COALESCE(files, 0) AS files, first, last, COALESCE(holding, 0) AS holding \
                    FROM \(IndexingQueue.workers) \
                    LEFT JOIN (SELECT worker, SUM(CASE WHEN state = 'done' THEN 1 ELSE 0 END) AS batches, \
                    CAST(SUM(CASE WHEN state = 'done' THEN count ELSE 0 END) AS INTEGER) AS files, \
                    MIN(claimed) AS first, MAX(finished) AS last, \
                    SUM(CASE WHEN state = 'claimed' THEN 1 ELSE 0 END) AS holding \
                    FROM \(batches) WHERE job_id = ? GROUP BY worker) AS work ON worker = name \
                    WHERE job_id = ? ORDER BY name
                    """, [.integer(id), .integer(id)]
                ).map { row throws(CatalogError) in
                    let files: Int = try row.get("files")
                    let first: Double? = try row.get("first"), last: Double? = try row.get("last")
                    let seconds = (last ?? 0) - (first ?? 0)
                    return IndexingStatus.Worker(
                        name: try row.get("name"), alive: try row.get("alive"), batches: try row.get("batches"),
                        files: files, photosPerSecond: seconds > 0 ? Double(files) / seconds : 0,
                        holding: try row.get("holding"))
                }
                let failures = try connection.rows(
                    "SELECT id, count, error FROM \(batches) WHERE job_id = ? AND state = 'failed' ORDER BY id",
                    [.integer(id)]
                ).map { row throws(CatalogError) in
                    IndexingStatus.Failure(
                        batch: try row.get("id"), files: try row.get("count"),
                        reason: try row.get("error") as String? ?? "failed")
                }
                return IndexingStatus(
                    folder: localPath(try job.get("folder")), state: try job.get("state"),
                    started: try job.get("started"), finished: try job.get("finished"), files: try job.get("files"),
                    queued: states["queued"]?.batches ?? 0, claimed: states["claimed"]?.batches ?? 0,
                    done: states["done"]?.batches ?? 0, failed: states["failed"]?.batches ?? 0,
                    filesDone: states["done"]?.files ?? 0, workers: workers, failures: failures)
            }
        }
    }
}
