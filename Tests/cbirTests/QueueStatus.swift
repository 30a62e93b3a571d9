import Foundation
import TestSupport

/// What `cbir index --status` says of the indexing queue of catalog `db`, asked through `cbir` (which may run
/// it on a test host).
struct QueueStatus {
    let cbir: CommandRunner
    let db: String

    /// What it prints now.
    func text() throws -> String {
        let shown = try cbir.run(["index", "--status", "--db", db])
        return shown.standardOutput + shown.standardError
    }

    /// Waits, up to a minute, until what it prints meets `condition`; false where it never did.
    func wait(until condition: (String) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if condition(try text()) { return true }
            usleep(100_000)
        }
        return false
    }

    /// How many batches `status` says are done.
    static func batchesDone(_ status: String) -> Int {
        status.firstMatch(of: /batches: (\d+) done/).flatMap { Int($0.1) } ?? 0
    }

    /// Whether `status` says the worker of process `pid` holds a batch.
    static func holds(_ status: String, pid: Int32) -> Bool {
        status.split(separator: "\n").contains { $0.contains(":\(pid):") && $0.contains("holding") }
    }
}
