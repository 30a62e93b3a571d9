import Foundation
import Synchronization

/// Threads of the server's own for code that blocks: a catalog call on PostgreSQL waits for each round trip
/// holding the thread it runs on, and on Swift's cooperative threads (one a core) a few such waits would hold
/// up every other request. As a task executor, such a server's requests run here instead
/// (``CatalogService/blockingThreads``).
final class BlockingThreads: TaskExecutor, Sendable {
    /// The threads every server in this process shares: enough for a database connection each and more.
    static let shared = BlockingThreads(count: 16)

    private let jobs = Mutex<[UnownedJob]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init(count: Int) {
        for number in 1...count {
            let thread = Thread { [self] in work() }
            thread.name = "cbir serve \(number)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        waiting.signal()
    }

    /// Runs jobs as they come, for as long as the process runs.
    private func work() -> Never {
        while true {
            waiting.wait()
            if let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}
