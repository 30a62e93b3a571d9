import Foundation
import GRDB
import ImageCodecs
import ImageKernels

/// Where an indexing run stands.
public struct IndexingProgress: Sendable {
    /// Files looked at so far, of `total`.
    public let done: Int
    public let total: Int
    /// Of those: newly indexed, unchanged (skipped), failed (recorded with their error), and unchanged
    /// but stored incomplete (faces before embeddings, say), which an analysis completed.
    public let indexed: Int
    public let unchanged: Int
    public let failed: Int
    public let upgraded: Int
    /// Stored files found gone from where they were stored whose bytes were found at a new path in the folder
    /// (moved or renamed), which now have that path and keep their faces, names and people; they count as
    /// unchanged too.
    public let moved: Int
    /// Stored files found gone from the folder and removed before indexing, and the file their faces'
    /// labels were saved to first (for `cbir labels --import`), if any had labels.
    public let removed: Int
    public let removedLabels: String?
    /// Seconds since the run started.
    public let elapsed: Double
    /// The file looked at last, and why it failed if it did.
    public let file: String?
    public let error: String?
    /// What the run waits for, when it waits (a database server that does not answer).
    public let notice: String?
    /// Whether this run ended the folder's indexing: where several workers index one folder, the last to finish
    /// (the one that groups the new faces into people).
    public let endedRun: Bool

    /// Files per second so far: this worker's, where several index one folder.
    public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }
    /// Seconds left at the rate so far.
    public var remaining: Double? { rate > 0 ? Double(total - done) / rate : nil }
}

extension Catalog {
    /// Indexes every file under `folder`, recursively, recognising images by content, with `analyses`
    /// (photos are decoded on `context`, by default the device that searches fastest here). Unchanged
    /// files (same size and modification time, or same bytes) are skipped, unless an analysis finds what
    /// it stored for them incomplete (faces stored without embeddings, say) and completes it; changed ones
    /// are re-indexed; a file that cannot be decoded, and a folder that cannot be listed, is recorded with
    /// its error and the run goes on. Stored files gone from the folder are removed first (their labels
    /// saved to a file), unless `keepMissing`.
    ///
    /// Files go in batches of `batch`: read and decoded side by side, analysed together by each analysis
    /// (the faces of the whole batch described and embedded at once) and stored in one transaction, each
    /// file whole or not at all, so a run killed midway loses nothing committed and the next run finishes
    /// the rest. `concurrency` batches are in flight at once, so one is read, decoded and analysed while
    /// another is, and their writes take turns on the actor; progress comes file by file as batches are
    /// stored, in the order they finish. Every file of the batches in flight is held decoded until its batch
    /// is stored, so `concurrency` and `batch` are held within ``maximumIndexingConcurrency``,
    /// ``maximumIndexingBatch`` and ``maximumFilesInFlight``. Honours task cancellation between batches.
    ///
    /// Runs of the same folder on several machines at once (against one PostgreSQL catalog) share the work
    /// (`IndexingQueue`): the first lists the folder and queues its batches, and each claims them one at a
    /// time under a lease of `lease` seconds that it renews while it works; a batch whose worker dies is claimed
    /// again when the lease runs out, and none is stored twice. A worker waits for others' batches before it
    /// returns, and the last to finish says so (``IndexingProgress/endedRun``). A server that cannot be reached is
    /// tried again, waiting longer each time, for up to `patience` seconds in all.
    public nonisolated func index(
        folder: String, analyses: [any PhotoAnalysis], context: RenderContext? = nil, keepMissing: Bool = false,
        concurrency: Int = Catalog.indexingConcurrency, batch: Int = Catalog.indexingBatch,
        lease: Double = Catalog.indexingLease, patience: Double = Catalog.serverPatience,
        progress: @escaping @Sendable (IndexingProgress) -> Void = { _ in }
    ) async throws -> IndexingProgress {
        try await prepare(analyses)
        _ = try FolderListing.root(folder)  // a missing folder is said before any worker joins
        let concurrency = min(max(1, concurrency), Self.maximumIndexingConcurrency)
        let work = FolderWork(
            catalog: self, folder: folder,
            run: IndexingRun(
                catalog: self, analyses: analyses, context: try RenderContext.orDefault(context, for: .search)),
            worker: IndexingWorker(lease: lease, patience: patience), progress: progress)
        let signature = indexingSignature(analyses), stored = storedPath(folder)
        let job = try await work.patiently { () throws(CatalogError) in
            try await writing { connection in
                try IndexingQueue.join(
                    folder: stored, signature: signature, worker: work.worker.name, lease: lease,
                    isGone: IndexingWorker.isGone, connection)
            }
        }
        return try await renewing(job, by: work.worker) {
            let record = try await work.patiently { () throws(CatalogError) in
                try await writing { connection in try IndexingHistory.start(folder: stored, connection) }
            }
            do {
                try await work.waitForListing(
                    of: job, keepMissing: keepMissing,
                    batch: min(max(1, batch), Self.maximumIndexingBatch, Self.maximumFilesInFlight / concurrency))
                try await work.indexBatches(of: job, concurrency: concurrency)
            } catch {
                _ = try? await writing { connection in
                    try IndexingQueue.release(job: job.id, worker: work.worker.name, connection)
                }
                throw error
            }
            let ended = try await work.patiently { () throws(CatalogError) in
                try await writing { connection in try IndexingQueue.end(job: job.id, connection) }
            }
            let result = work.now(endedRun: ended)
            try await work.patiently { () throws(CatalogError) in
                try await writing { connection in try IndexingHistory.finish(record, result, connection) }
            }
            return result
        }
    }

    /// `body`, while `worker` renews its leases in `job` every quarter of a lease; the renewals end with it.
    nonisolated func renewing<T: Sendable>(
        _ job: IndexingQueue.Job, by worker: IndexingWorker, _ body: () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(worker.lease / 4 * 1e9))
                    _ = try? await self.writing { connection in
                        try IndexingQueue.renew(
                            job: job.id, worker: worker.name, lease: worker.lease, limit: worker.batchLimit,
                            connection)
                    }
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// What a worker's rows are made with: the store's schema and each analysis's version, which every worker
    /// of a job shares.
    nonisolated func indexingSignature(_ analyses: [any PhotoAnalysis]) -> String {
        (["schema \(storage.schemaVersion)"] + analyses.map { "\($0.name): \($0.version)" }.sorted())
            .joined(separator: "; ")
    }

    /// Seconds a worker's claim on a batch lasts unless renewed: long enough that a slow batch on a busy machine
    /// or a server restarting does not lose it, short enough that a dead worker's batch is soon taken over.
    public static let indexingLease: Double = 20

    /// Seconds a worker keeps trying a server that does not answer (restarting, cut off) before it gives up.
    public static let serverPatience: Double = 300

    /// Batches in flight at once by default: one a core, at least two (one is read and decoded while another
    /// is analysed) and at most 16.
    public static let indexingConcurrency = min(16, max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Files a batch by default: enough for their faces to share the network's batch, few enough that the
    /// batches in flight hold little memory (a decoded photo takes a few MB).
    public static let indexingBatch = 8

    /// The most batches in flight, files a batch, and files of all batches in flight (held decoded at once:
    /// up to about 10 MB each, a few MB for most photos).
    public static let maximumIndexingConcurrency = 16, maximumIndexingBatch = 64, maximumFilesInFlight = 256

    /// Stores a batch's writes in one transaction, marking its claim done there where it has one; false where the
    /// claim was lost (nothing is stored then).
    func commit(_ writes: [IndexingRun.FileWrite], finishing claim: IndexingQueue.Claim? = nil)
        throws(CatalogError) -> Bool
    {
        let stores = writes.compactMap(\.write)
        guard claim != nil || !stores.isEmpty else { return true }
        var counts = IndexingQueue.Counts()
        for write in writes { counts.add(write.outcome) }
        return try writing { [counts] connection in
            if let claim, try !IndexingQueue.finish(claim, counts, connection) { return false }
            for store in stores { try store(connection) }
            return true
        }
    }

    /// The stored files under `folder` that are gone from it: not listed, not inside a folder that could not be
    /// listed, and not a file on disk (or a file of the database itself, which earlier versions recorded as a
    /// failed photo); and the listed files nothing is stored for.
    nonisolated func filesGone(under folder: String, listing: FolderListing) throws(CatalogError) -> (
        gone: [ImageRecord], new: [FolderListing.File]
    ) {
        let prefix = Self.folderPrefix(storedPath(folder))
        let stored = try reading { connection in
            try connection.rows(
                "SELECT \(ImageRecord.columns) FROM images WHERE substr(path, 1, length(?)) = ?",
                [.text(prefix), .text(prefix)]
            ).map(imageRecord)
        }
        let listed = Set(listing.files.map(\.path)), unlisted = listing.unreadableFolders.map { $0.path + "/" }
        let gone = stored.filter { image in
            var status = stat()
            return !listed.contains(image.path) && !unlisted.contains { (image.path + "/").hasPrefix($0) }
                && (!(FileSystemPath.withCString(image.path) { stat($0, &status) } == 0
                    && status.st_mode & S_IFMT == S_IFREG)
                    || files.contains(image.path))
        }
        let storedPaths = Set(stored.map(\.path))
        return (gone, listing.files.filter { !storedPaths.contains($0.path) })
    }

    /// Gives each file gone from the folder whose bytes now lie at a new file (same size, same content hash) that
    /// path, keeping its faces, names and people: the file was moved or renamed. Returns the files still gone.
    nonisolated func move(_ gone: [ImageRecord], to new: [FolderListing.File]) async throws(CatalogError) -> (
        moved: Int, gone: [ImageRecord]
    ) {
        let bySize = Dictionary(grouping: new, by: \.size)
        var hashes: [String: String] = [:], taken: Set<String> = [], moves: [(id: Int64, to: FolderListing.File)] = []
        var left: [ImageRecord] = []
        for record in gone {
            let target =
                record.status == .indexed && !record.hash.isEmpty
                ? bySize[record.size, default: []].first { file in
                    guard !taken.contains(file.path) else { return false }
                    if hashes[file.path] == nil { hashes[file.path] = Self.contentHash(of: file.path) ?? "" }
                    return hashes[file.path] == record.hash
                } : nil
            guard let target, let id = record.id else {
                left.append(record)
                continue
            }
            taken.insert(target.path)
            moves.append((id, target))
        }
        guard !moves.isEmpty else { return (0, gone) }
        let stored = moves.map { (id: $0.id, path: storedPath($0.to.path), modified: $0.to.modified) }
        try await writing { connection in
            for move in stored {
                try connection.execute(
                    "UPDATE images SET path = ?, modified = ? WHERE id = ?",
                    [.text(move.path), .real(move.modified), .integer(move.id)])
            }
        }
        return (moves.count, left)
    }

    /// The content hash of the file at `path`; nil when it cannot be read.
    nonisolated static func contentHash(of path: String) -> String? {
        guard let file = try? RegularFile.open(path) else { return nil }
        defer { close(file.descriptor) }
        return try? ContentHash.ofFile(file.descriptor)
    }

    /// Removes `gone`, the stored files found gone from a folder, and everything stored for them. Their faces'
    /// labels are saved first to a file beside the database. Returns the labels file, if one was written.
    nonisolated func remove(_ gone: [ImageRecord]) async throws(CatalogError) -> String? {
        let ids = gone.compactMap(\.id)
        guard !ids.isEmpty else { return nil }
        let labels = try reading { connection in
            try faceLabels(connection, sql: Self.labelledFaces + " AND image_id IN (\(RowBatches.list(ids)))")
        }
        var labelsFile: String?
        if !labels.isEmpty {
            let file = "\(path).removed-labels-\(Int(Date().timeIntervalSince1970)).json"
            do { try FaceLabel.encoder.encode(labels).write(to: URL(fileURLWithPath: file)) } catch {
                throw .storage(
                    path: file,
                    reason:
                        "cannot save the labels of removed files, so nothing was removed: \(error.localizedDescription)"
                )
            }
            labelsFile = file
        }
        try await writing { connection in
            try connection.execute("DELETE FROM images WHERE id IN (\(RowBatches.list(ids)))", [])
        }
        return labelsFile
    }
}
