import Foundation
import ImageKernels
import NIOConcurrencyHelpers

/// One worker's run over a folder's job (``IndexingQueue``): waiting for the folder to be listed, or listing it,
/// then claiming its batches and indexing them several at once, and what it did so far for its progress.
struct FolderWork: Sendable {
    let catalog: Catalog
    let folder: String
    let run: IndexingRun
    let worker: IndexingWorker
    let progress: @Sendable (IndexingProgress) -> Void
    private let start = DispatchTime.now().uptimeNanoseconds
    /// What the run did so far; batches in flight read it to report a wait.
    private let tally = NIOLockedValueBox(Tally())

    init(
        catalog: Catalog, folder: String, run: IndexingRun, worker: IndexingWorker,
        progress: @escaping @Sendable (IndexingProgress) -> Void
    ) {
        self.catalog = catalog
        self.folder = folder
        self.run = run
        self.worker = worker
        self.progress = progress
    }

    /// What an indexing run did so far.
    struct Tally {
        var counts = IndexingQueue.Counts(), done = 0, total = 0, moved = 0, removed = 0
        var removedLabels: String?
    }

    /// Where the run stands, at `file` or waiting for `notice`, or at its end (`endedRun` where it was the last).
    func now(_ file: IndexingRun.FileWrite? = nil, notice: String? = nil, endedRun: Bool = false) -> IndexingProgress {
        tally.withLockedValue { tally in
            IndexingProgress(
                done: tally.done, total: tally.total, indexed: tally.counts.indexed, unchanged: tally.counts.unchanged,
                failed: tally.counts.failed, upgraded: tally.counts.upgraded, moved: tally.moved,
                removed: tally.removed, removedLabels: tally.removedLabels,
                elapsed: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, file: file?.path,
                error: file?.outcome.error, notice: notice, endedRun: endedRun)
        }
    }

    private func report(_ file: IndexingRun.FileWrite) {
        tally.withLockedValue { tally in
            tally.counts.add(file.outcome)
            tally.done += 1
        }
        progress(now(file))
    }

    /// `body`, tried again while the server cannot be reached, each wait reported.
    func patiently<T>(_ body: () async throws(CatalogError) -> T) async throws(CatalogError) -> T {
        try await worker.patiently({ progress(now(notice: "waiting for the database: \($0)")) }, body)
    }

    /// Lists the folder where this worker is `job`'s lister, or waits until its lister has queued it, taking the
    /// listing over where the lister's lease runs out.
    func waitForListing(of job: IndexingQueue.Job, keepMissing: Bool, batch: Int) async throws {
        var lists = job.lists
        while true {
            if lists {
                let listed = try await list(keepMissing: keepMissing, batch: batch)
                let queued = try await patiently { () throws(CatalogError) in
                    try await catalog.writing { connection in
                        try IndexingQueue.enqueue(
                            listed.batches, files: listed.total, job: job.id, worker: worker.name, connection)
                    }
                }
                guard queued else {  // another worker took the listing over
                    lists = false
                    continue
                }
                tally.withLockedValue { tally in
                    (tally.total, tally.moved, tally.removed, tally.removedLabels) =
                        (listed.total, listed.moved, listed.removed, listed.removedLabels)
                }
                try await patiently { () throws(CatalogError) in _ = try await catalog.commit(listed.failures) }
                listed.failures.forEach(report)
                return
            }
            switch try await patiently({ () throws(CatalogError) in
                try await catalog.writing { connection in
                    try IndexingQueue.listing(job: job.id, worker: worker.name, lease: worker.lease, connection)
                }
            }) {
            case .queued(let files):
                tally.withLockedValue { $0.total = files }
                return
            case .takenOver: lists = true
            case .listing: try await Task.sleep(nanoseconds: UInt64(worker.poll * 1e9))
            case .ended: return
            }
        }
    }

    /// Claims `job`'s batches and indexes up to `concurrency` at once, until none is left to claim and no other
    /// worker holds one (they finish them, or their leases run out and this worker claims them).
    func indexBatches(of job: IndexingQueue.Job, concurrency: Int) async throws {
        try await withThrowingTaskGroup(of: [IndexingRun.FileWrite]?.self) { group in
            var inFlight = 0
            while true {
                while inFlight < concurrency,
                    let claim = try await patiently({ () throws(CatalogError) in
                        try await catalog.writing { connection in
                            try IndexingQueue.claim(job: job.id, worker: worker.name, lease: worker.lease, connection)
                        }
                    })
                {
                    inFlight += 1
                    group.addTask { try await index(claim) }
                }
                if inFlight == 0 {
                    let unfinished = try await patiently { () throws(CatalogError) in
                        try await catalog.writing { connection in
                            try IndexingQueue.forget(
                                gone: IndexingWorker.isGone, ofJobs: "?", [.integer(job.id)], connection)
                            return try IndexingQueue.unfinished(job: job.id, connection)
                        }
                    }
                    guard unfinished > 0 else { return }
                    try await Task.sleep(nanoseconds: UInt64(worker.poll * 1e9))
                    continue
                }
                let stored = try await group.next()
                inFlight -= 1
                try Task.checkCancellation()
                stored??.forEach(report)
            }
        }
    }

    /// Indexes a claimed batch, storing it in one transaction with the batch marked done; nil where the claim was
    /// lost before (its lease ran out and another worker claimed the batch): then nothing is stored. A server
    /// that cannot be reached is waited for: for the analysis (which reads what is stored) and, once the batch
    /// is analysed, for that transaction alone. A batch that fails otherwise is failed in the queue with why.
    private func index(_ claim: IndexingQueue.Claim) async throws -> [IndexingRun.FileWrite]? {
        let files = claim.files.map { file in
            FolderListing.File(path: catalog.localPath(file.path), size: file.size, modified: file.modified)
        }
        do {
            let writes = try await patiently { () throws(CatalogError) in try await run.analyse(files) }
            let stored = try await patiently { () throws(CatalogError) in
                try await catalog.commit(writes, finishing: claim)
            }
            return stored ? writes : nil
        } catch {
            _ = try? await catalog.writing { connection in
                try IndexingQueue.fail(claim, reason: "\(error)", connection)
            }
            throw error
        }
    }

    /// A folder listed for its job: the stored files gone from it moved or removed, its files in batches to
    /// queue, and the failures its listing met (folders that could not be listed, entries that are no photos).
    struct ListedFolder {
        var batches: [[IndexingQueue.File]]
        var failures: [IndexingRun.FileWrite]
        var total: Int
        var moved: Int
        var removed: Int
        var removedLabels: String?
    }

    /// Lists the folder for its job, as its lister: stored files gone from it whose bytes lie at a new path take
    /// that path, the rest gone are removed (unless `keepMissing`), and its files go in batches of `batch`.
    private func list(keepMissing: Bool, batch: Int) async throws(CatalogError) -> ListedFolder {
        let listing = try FolderListing(folder, excluding: catalog.files.identities())
        let found = try catalog.filesGone(under: folder, listing: listing)
        let (moved, gone) = try await catalog.move(found.gone, to: found.new)
        let removedLabels = keepMissing ? nil : try await catalog.remove(gone)
        let unlisted =
            listing.unreadableFolders.map { ($0.path, "cannot list the folder: \($0.reason)") }
            + listing.unusableEntries
        let failures = unlisted.map { path, error in
            let record = ImageRecord(
                id: nil, path: path, size: 0, modified: 0, hash: "", width: 0, height: 0, status: .failed,
                error: error)
            return IndexingRun.FileWrite(
                path: path, outcome: .failed(error), write: catalog.replacement(record, writes: []))
        }
        let files = listing.files.map { file in
            IndexingQueue.File(path: catalog.storedPath(file.path), size: file.size, modified: file.modified)
        }
        return ListedFolder(
            batches: stride(from: 0, to: files.count, by: batch).map {
                Array(files[$0..<min($0 + batch, files.count)])
            },
            failures: failures, total: files.count + failures.count, moved: moved,
            removed: keepMissing ? 0 : gone.count, removedLabels: removedLabels)
    }
}
