import Foundation

/// One process's part in indexing a folder, alone or beside workers on other machines (``IndexingQueue``): its
/// name in the queue, how long its claims last, and how long it waits for a server that does not answer.
struct IndexingWorker: Sendable {
    /// `machine:process:random`: unique among a job's workers, and says where each one runs.
    let name: String
    /// Seconds a claim lasts unless it is renewed; the worker renews its claims every quarter of it.
    let lease: Double
    /// Seconds in all the worker keeps trying a server that does not answer before it gives up.
    let patience: Double

    init(lease: Double, patience: Double) {
        name = "\(LibraryRoots.machine):\(getpid()):\(UUID().uuidString.prefix(4).lowercased())"
        self.lease = lease
        self.patience = patience
    }

    /// Whether the worker `name` ran on this machine in a process that has ended: its leases need not be waited
    /// out. A process id taken again since by another process only leaves them to run out.
    static func isGone(_ name: String) -> Bool {
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.dropLast(2).joined(separator: ":") == LibraryRoots.machine,
            let process = pid_t(parts[parts.count - 2]), process != getpid()
        else { return false }
        return kill(process, 0) != 0 && errno == ESRCH
    }

    /// The longest a worker holds one batch: past it, it stops renewing the claim, which runs out for another
    /// worker to take (the batch is stuck on something, and ``IndexingQueue/attempts`` fails it in the end).
    var batchLimit: Double { max(600, 20 * lease) }

    /// How long a worker with nothing left to claim waits before it looks again for batches other workers
    /// hold: they finish them, or their leases run out.
    var poll: Double { min(1, lease / 8) }

    /// `body`, tried again while the server cannot be reached, after waits that double from a quarter of a second
    /// to 8 s, up to ``patience`` seconds of waiting in all; `waiting` is told of each wait, with the reason.
    func patiently<T>(
        _ waiting: (String) -> Void = { _ in }, _ body: () async throws(CatalogError) -> T
    ) async throws(CatalogError) -> T {
        var delay = 0.25, waited = 0.0
        while true {
            do { return try await body() } catch {
                guard case .unreachable(_, let reason) = error, waited < patience, !Task.isCancelled else {
                    throw error
                }
                waiting(String(format: "%@; trying again in %.2g s", reason, delay))
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                waited += delay
                delay = min(8, delay * 2)
            }
        }
    }
}
