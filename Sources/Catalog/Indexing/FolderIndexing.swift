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

    /// Files per second so far.
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
    public nonisolated func index(
        folder: String, analyses: [any PhotoAnalysis], context: RenderContext? = nil, keepMissing: Bool = false,
        concurrency: Int = Catalog.indexingConcurrency, batch: Int = Catalog.indexingBatch,
        progress: @Sendable (IndexingProgress) -> Void = { _ in }
    ) async throws -> IndexingProgress {
        try await prepare(analyses)
        let run = IndexingRun(
            catalog: self, analyses: analyses, context: try RenderContext.orDefault(context, for: .search))
        let listing = try FolderListing(folder, excluding: self.files.identities())
        let files = listing.files
        let start = DispatchTime.now().uptimeNanoseconds
        let record = try await writing { connection in
            try IndexingHistory.start(folder: storedPath(folder), connection)
        }
        let found = try filesGone(under: folder, listing: listing)
        let (moved, gone) = try await move(found.gone, to: found.new)
        let removed = keepMissing ? 0 : gone.count, removedLabels = keepMissing ? nil : try await remove(gone)
        let total = files.count + listing.unreadableFolders.count + listing.unusableEntries.count
        var indexed = 0, unchanged = 0, failed = 0, upgraded = 0, done = 0
        func now(_ file: IndexingRun.FileWrite?) -> IndexingProgress {
            IndexingProgress(
                done: done, total: total, indexed: indexed, unchanged: unchanged, failed: failed, upgraded: upgraded,
                moved: moved, removed: removed, removedLabels: removedLabels,
                elapsed: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, file: file?.path,
                error: file?.outcome.error)
        }
        func report(_ file: IndexingRun.FileWrite) {
            switch file.outcome {
            case .indexed: indexed += 1
            case .unchanged: unchanged += 1
            case .upgraded: upgraded += 1
            case .failed: failed += 1
            }
            done += 1
            progress(now(file))
        }
        let unlisted =
            listing.unreadableFolders.map { ($0.path, "cannot list the folder: \($0.reason)") }
            + listing.unusableEntries
        let failures = unlisted.map { path, error in
            let record = ImageRecord(
                id: nil, path: path, size: 0, modified: 0, hash: "", width: 0, height: 0, status: .failed,
                error: error)
            return IndexingRun.FileWrite(path: path, outcome: .failed(error), write: replacement(record, writes: []))
        }
        try await commit(failures)
        failures.forEach(report)
        let concurrency = min(max(1, concurrency), Self.maximumIndexingConcurrency)
        let batch = min(max(1, batch), Self.maximumIndexingBatch, Self.maximumFilesInFlight / concurrency)
        try await withThrowingTaskGroup(of: [IndexingRun.FileWrite].self) { group in
            var next = 0
            func startNext() {
                guard next < files.count else { return }
                let files = Array(files[next..<min(next + batch, files.count)])
                next += files.count
                group.addTask { try await run.index(files) }
            }
            for _ in 0..<concurrency { startNext() }
            while let stored = try await group.next() {
                try Task.checkCancellation()
                startNext()
                stored.forEach(report)
            }
        }
        let result = now(nil)
        try await writing { connection in try IndexingHistory.finish(record, result, connection) }
        return result
    }

    /// Batches in flight at once by default: one a core, at least two (one is read and decoded while another
    /// is analysed) and at most 16.
    public static let indexingConcurrency = min(16, max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Files a batch by default: enough for their faces to share the network's batch, few enough that the
    /// batches in flight hold little memory (a decoded photo takes a few MB).
    public static let indexingBatch = 8

    /// The most batches in flight, files a batch, and files of all batches in flight (held decoded at once:
    /// up to about 10 MB each, a few MB for most photos).
    public static let maximumIndexingConcurrency = 16, maximumIndexingBatch = 64, maximumFilesInFlight = 256

    /// Stores a batch's writes in one transaction.
    func commit(_ writes: [IndexingRun.FileWrite]) throws(CatalogError) {
        let writes = writes.compactMap(\.write)
        guard !writes.isEmpty else { return }
        try writing { connection in
            for write in writes { try write(connection) }
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
