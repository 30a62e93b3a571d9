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
    /// but stored before embeddings, which were added.
    public let indexed: Int
    public let unchanged: Int
    public let failed: Int
    public let upgraded: Int
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

extension CBIRDatabase {
    /// Indexes every file under `folder`, recursively, recognising images by content. Unchanged files
    /// (same size and modification time, or same bytes) are skipped, unless their faces were stored
    /// without embeddings, which are added; changed ones are re-indexed; a file that cannot be decoded,
    /// and a folder that cannot be listed, is recorded with its error and the run goes on. Stored files
    /// gone from the folder are removed first (their labels saved to a file), unless `keepMissing`.
    ///
    /// Files go in batches of `batch`: read and decoded side by side, analysed together by each indexer
    /// (the faces of the whole batch described and embedded at once) and stored in one transaction, each
    /// file whole or not at all, so a run killed midway loses nothing committed and the next run finishes
    /// the rest. `concurrency` batches are in flight at once, so one is read, decoded and analysed while
    /// another is, and their writes take turns on the actor; progress comes file by file as batches are
    /// stored, in the order they finish. Every file of the batches in flight is held decoded until its batch
    /// is stored, so `concurrency` and `batch` are held within ``maximumIndexingConcurrency``,
    /// ``maximumIndexingBatch`` and ``maximumFilesInFlight``. Honours task cancellation between batches.
    public nonisolated func index(folder: String, keepMissing: Bool = false, concurrency: Int = CBIRDatabase.indexingConcurrency,
                                  batch: Int = CBIRDatabase.indexingBatch,
                                  progress: @Sendable (IndexingProgress) -> Void = { _ in }) async throws -> IndexingProgress {
        let listing = try FolderListing(folder, excluding: self.files.identities())
        let files = listing.files
        let start = DispatchTime.now().uptimeNanoseconds
        let (removed, removedLabels) = keepMissing ? (0, nil) : try await removeMissing(under: folder, listing: listing)
        let total = files.count + listing.unreadableFolders.count + listing.unusableEntries.count
        var indexed = 0, unchanged = 0, failed = 0, upgraded = 0, done = 0
        func now(_ file: FileWrite?) -> IndexingProgress {
            IndexingProgress(done: done, total: total, indexed: indexed, unchanged: unchanged, failed: failed, upgraded: upgraded,
                             removed: removed, removedLabels: removedLabels,
                             elapsed: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, file: file?.path, error: file?.outcome.error)
        }
        func report(_ file: FileWrite) {
            switch file.outcome {
            case .indexed: indexed += 1
            case .unchanged: unchanged += 1
            case .upgraded: upgraded += 1
            case .failed: failed += 1
            }
            done += 1
            progress(now(file))
        }
        let unlisted = listing.unreadableFolders.map { ($0.path, "cannot list the folder: \($0.reason)") } + listing.unusableEntries
        let failures = unlisted.map { path, error in
            let record = ImageRecord(id: nil, path: path, size: 0, modified: 0, hash: "", width: 0, height: 0, status: .failed,
                                     error: error)
            return FileWrite(path: path, outcome: .failed(error), write: replacement(record, writes: []))
        }
        try await commit(failures)
        failures.forEach(report)
        let concurrency = min(max(1, concurrency), Self.maximumIndexingConcurrency)
        let batch = min(max(1, batch), Self.maximumIndexingBatch, Self.maximumFilesInFlight / concurrency)
        try await withThrowingTaskGroup(of: [FileWrite].self) { group in
            var next = 0
            func startNext() {
                guard next < files.count else { return }
                let files = Array(files[next..<min(next + batch, files.count)])
                next += files.count
                group.addTask { try await self.index(files) }
            }
            for _ in 0..<concurrency { startNext() }
            while let stored = try await group.next() {
                try Task.checkCancellation()
                startNext()
                stored.forEach(report)
            }
        }
        return now(nil)
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

    enum Outcome: Sendable {
        case indexed, unchanged, upgraded
        case failed(String)

        var error: String? {
            if case .failed(let reason) = self { reason } else { nil }
        }
    }

    /// One file's part of its batch's transaction, and what it comes to.
    struct FileWrite: Sendable {
        let path: String
        let outcome: Outcome
        /// Nil where nothing is written (an unchanged file).
        let write: (@Sendable (Database) throws -> Void)?
    }

    /// Indexes a batch of files: read and decoded side by side, analysed together, stored in one transaction.
    nonisolated func index(_ files: [FolderListing.File]) async throws(DatabaseError) -> [FileWrite] {
        let loaded = await withTaskGroup(of: (Int, Result<LoadedFile, DatabaseError>).self) { group in
            for (index, file) in files.enumerated() {
                group.addTask { (index, Result { () throws(DatabaseError) in try self.load(file) }) }
            }
            var loaded: [(Int, Result<LoadedFile, DatabaseError>)] = []
            for await file in group { loaded.append(file) }
            return loaded.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var entries: [(path: String, file: LoadedFile)] = []
        for (file, result) in zip(files, loaded) { entries.append((file.path, try result.get())) }
        let writes = try self.writes(for: entries)
        try await commit(writes)
        return writes
    }

    /// Stores a batch's writes in one transaction.
    func commit(_ writes: [FileWrite]) throws(DatabaseError) {
        let writes = writes.compactMap(\.write)
        guard !writes.isEmpty else { return }
        try write { db in
            for write in writes { try write(db) }
        }
    }

    /// A file read and decoded, or what to record instead; nothing is written yet.
    enum LoadedFile: Sendable {
        /// Stored with the same size and modification time.
        case unchanged
        /// Stored with the same bytes under another modification time.
        case touched(id: Int64, modified: Double)
        /// Stored unchanged (the modification time aside), but with faces that lack embeddings.
        case incomplete(id: Int64, modified: Double, Photo)
        /// Unreadable or undecodable: the record carries the error.
        case failed(ImageRecord)
        case decoded(ImageRecord, Photo)
    }

    /// Reads and decodes one file unless it is stored unchanged: no writes, so it can run ahead of them.
    nonisolated func load(_ file: FolderListing.File) throws(DatabaseError) -> LoadedFile {
        let stored = try image(atPath: file.path)
        let unchanged = stored.map { $0.size == file.size && $0.modified == file.modified } ?? false
        if unchanged, try !lacksEmbeddings(stored) { return .unchanged }
        var record = ImageRecord(id: nil, path: file.path, size: file.size, modified: file.modified, hash: "",
                                 width: 0, height: 0, status: .failed, error: nil)
        let bytes: [UInt8]
        do { bytes = try ImageDecoder.contents(of: file.path) } catch {
            record.error = error.description
            return .failed(record)
        }
        record.hash = Self.contentHash(bytes)
        if let stored, let id = stored.id, stored.hash == record.hash, stored.size == file.size {
            guard try lacksEmbeddings(stored), let photo = try? Photo(path: file.path, bytes: bytes, context: context) else {
                return .touched(id: id, modified: file.modified)
            }
            return .incomplete(id: id, modified: file.modified, photo)
        }
        do {
            let photo = try Photo(path: file.path, bytes: bytes, context: context)
            record.width = Int(Double(photo.pixels.descriptor.width) * photo.scale)
            record.height = Int(Double(photo.pixels.descriptor.height) * photo.scale)
            return .decoded(record, photo)
        } catch {
            record.error = "\(error)"
            return .failed(record)
        }
    }

    /// Whether a stored image has faces without embeddings that the face indexer could add.
    nonisolated func lacksEmbeddings(_ stored: ImageRecord?) throws(DatabaseError) -> Bool {
        guard let stored, let id = stored.id, stored.status == .indexed, let indexer = try? faceIndexer(), indexer.embedder != nil else {
            return false
        }
        return try read { db in try indexer.store.lacksEmbeddings(image: id, db) }
    }

    /// What to store for each loaded file (with its path): the decoded photos analysed as one batch by
    /// each indexer, off the actor; a photo that an indexer fails on is recorded with that error.
    nonisolated func writes(for files: [(path: String, file: LoadedFile)]) throws(DatabaseError) -> [FileWrite] {
        let photos = files.compactMap { if case .decoded(_, let photo) = $0.file { photo } else { nil } }
        let prepared = indexers.map { $0.prepare(photos) }
        var writes: [FileWrite] = [], decoded = 0
        for (path, file) in files {
            switch file {
            case .unchanged:
                writes.append(FileWrite(path: path, outcome: .unchanged, write: nil))
            case .touched(let id, let modified):
                writes.append(FileWrite(path: path, outcome: .unchanged) { db in try Self.setModified(modified, image: id, db) })
            case .incomplete(let id, let modified, let photo):
                writes.append(try embeddingsWrite(image: id, modified: modified, photo: photo))
            case .failed(let record):
                writes.append(FileWrite(path: path, outcome: .failed(record.error ?? "failed"), write: replacement(record, writes: [])))
            case .decoded(var record, _):
                defer { decoded += 1 }
                do {
                    let analyses = try prepared.map { try $0[decoded].get() }
                    record.status = .indexed
                    writes.append(FileWrite(path: path, outcome: .indexed, write: replacement(record, writes: analyses)))
                } catch let error as DatabaseError {
                    throw error
                } catch {
                    record.error = "\(error)"
                    writes.append(FileWrite(path: path, outcome: .failed("\(error)"), write: replacement(record, writes: [])))
                }
            }
        }
        return writes
    }

    /// The write that gives a stored image's faces their missing embeddings, made from its photo.
    nonisolated func embeddingsWrite(image id: Int64, modified: Double, photo: Photo) throws(DatabaseError) -> FileWrite {
        let indexer = try faceIndexer()
        do {
            let faces = try read { db in try indexer.store.faces(ofImage: id, db) }.filter { $0.embedding == nil }
            let embeddings = try indexer.embeddings(of: faces, in: photo) ?? []
            return FileWrite(path: photo.path, outcome: .upgraded) { db in
                try Self.setModified(modified, image: id, db)
                try indexer.store.setEmbeddings(embeddings, db)
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            return FileWrite(path: photo.path, outcome: .failed("\(photo.path): cannot add embeddings: \(error)"), write: nil)
        }
    }

    /// Removes the stored files under `folder` that are gone from it: not listed, not inside a folder that
    /// could not be listed, and not a file on disk (or a file of the database itself, which earlier versions
    /// recorded as a failed photo). Their faces' labels are saved first to a file beside
    /// the database. Returns how many were removed and the labels file, if one was written.
    nonisolated func removeMissing(under folder: String, listing: FolderListing) async throws(DatabaseError) -> (Int, String?) {
        let prefix = Self.folderPrefix(Self.storedPath(folder))
        let listed = Set(listing.files.map(\.path)), unlisted = listing.unreadableFolders.map { $0.path + "/" }
        let stored = try read { db in
            try Row.fetchAll(db, sql: "SELECT id, path FROM images WHERE substr(path, 1, ?) = ?", arguments: [prefix.unicodeScalars.count, prefix])
                .map { (id: $0["id"] as Int64, path: $0["path"] as String) }
        }
        let missing = stored.filter { image in
            var status = stat()
            return !listed.contains(image.path) && !unlisted.contains { (image.path + "/").hasPrefix($0) }
                && (!(FileSystemPath.withCString(image.path) { stat($0, &status) } == 0 && status.st_mode & S_IFMT == S_IFREG)
                    || files.contains(image.path))
        }
        guard !missing.isEmpty else { return (0, nil) }
        let ids = missing.map(\.id)
        let labels = try read { db in try Self.faceLabels(db, sql: Self.labelledFaces + " AND image_id IN (\(FaceStore.list(ids)))") }
        var labelsFile: String?
        if !labels.isEmpty {
            let file = "\(path).removed-labels-\(Int(Date().timeIntervalSince1970)).json"
            do { try FaceLabel.encoder.encode(labels).write(to: URL(fileURLWithPath: file)) } catch {
                throw .storage(path: file, reason: "cannot save the labels of removed files, so nothing was removed: \(error.localizedDescription)")
            }
            labelsFile = file
        }
        try await write { db in try db.execute(sql: "DELETE FROM images WHERE id IN (\(FaceStore.list(ids)))") }
        return (missing.count, labelsFile)
    }

    /// FNV-1a, 64 bits, in hex: tells a changed file from a touched one.
    static func contentHash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
