import Foundation
import GRDB
import ImageCodecs
import ImageKernels

/// One indexing run's work on its batches of files: each batch read and decoded side by side, analysed
/// together by each analysis, and stored in one transaction.
struct IndexingRun: Sendable {
    let catalog: Catalog
    let analyses: [any PhotoAnalysis]
    /// Where photos are decoded (their gray planes rendered).
    let context: RenderContext

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
        let write: (@Sendable (any StoreConnection) throws -> Void)?
    }

    /// What a batch of files comes to, read and decoded side by side and analysed together; nothing is stored.
    func analyse(_ files: [FolderListing.File]) async throws(CatalogError) -> [FileWrite] {
        let loaded = await withTaskGroup(of: (Int, Result<LoadedFile, CatalogError>).self) { group in
            for (index, file) in files.enumerated() {
                group.addTask { (index, Result { () throws(CatalogError) in try load(file) }) }
            }
            var loaded: [(Int, Result<LoadedFile, CatalogError>)] = []
            for await file in group { loaded.append(file) }
            return loaded.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var entries: [(path: String, file: LoadedFile)] = []
        for (file, result) in zip(files, loaded) { entries.append((file.path, try result.get())) }
        return try self.writes(for: entries)
    }

    /// A file read and decoded, or what to record instead; nothing is written yet.
    enum LoadedFile: Sendable {
        /// Stored with the same size and modification time.
        case unchanged
        /// Stored with the same bytes under another modification time.
        case touched(id: Int64, modified: Double)
        /// Stored unchanged (the modification time aside), but incomplete for these analyses.
        case incomplete(id: Int64, modified: Double, Photo, analyses: [any PhotoAnalysis])
        /// Unreadable or undecodable: the record carries the error.
        case failed(ImageRecord)
        case decoded(ImageRecord, Photo)
    }

    /// Reads and decodes one file unless it is stored unchanged: no writes, so it can run ahead of them.
    func load(_ file: FolderListing.File) throws(CatalogError) -> LoadedFile {
        let stored = try catalog.image(atPath: file.path)
        let unchanged = stored.map { $0.size == file.size && $0.modified == file.modified } ?? false
        if unchanged, try incompleteAnalyses(stored).isEmpty { return .unchanged }
        var record = ImageRecord(
            id: nil, path: file.path, size: file.size, modified: file.modified, hash: "",
            width: 0, height: 0, status: .failed, error: nil)
        let bytes: [UInt8]
        do { bytes = try ImageDecoder.contents(of: file.path) } catch {
            record.error = error.description
            return .failed(record)
        }
        record.hash = ContentHash.of(bytes)
        if let stored, let id = stored.id, stored.hash == record.hash, stored.size == file.size {
            let incomplete = try incompleteAnalyses(stored)
            guard !incomplete.isEmpty, let photo = try? Photo(path: file.path, bytes: bytes, context: context) else {
                return .touched(id: id, modified: file.modified)
            }
            return .incomplete(id: id, modified: file.modified, photo, analyses: incomplete)
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

    /// The analyses that find what they stored for an indexed image incomplete.
    func incompleteAnalyses(_ stored: ImageRecord?) throws(CatalogError) -> [any PhotoAnalysis] {
        guard let stored, let id = stored.id, stored.status == .indexed else { return [] }
        return try catalog.reading { [analyses] connection in
            try analyses.filter { try $0.isIncomplete(image: id, connection) }
        }
    }

    /// What to store for each loaded file (with its path): the decoded photos analysed as one batch by
    /// each analysis, off the actor; a photo that an analysis fails on is recorded with that error.
    func writes(for files: [(path: String, file: LoadedFile)]) throws(CatalogError) -> [FileWrite] {
        let photos = files.compactMap { if case .decoded(_, let photo) = $0.file { photo } else { nil } }
        let prepared = analyses.map { $0.prepare(photos) }
        var writes: [FileWrite] = [], decoded = 0
        for (path, file) in files {
            switch file {
            case .unchanged:
                writes.append(FileWrite(path: path, outcome: .unchanged, write: nil))
            case .touched(let id, let modified):
                writes.append(
                    FileWrite(path: path, outcome: .unchanged) { connection in
                        try Catalog.setModified(modified, image: id, connection)
                    })
            case .incomplete(let id, let modified, let photo, let incomplete):
                writes.append(try completion(image: id, modified: modified, photo: photo, by: incomplete))
            case .failed(let record):
                writes.append(
                    FileWrite(
                        path: path, outcome: .failed(record.error ?? "failed"),
                        write: catalog.replacement(record, writes: [])))
            case .decoded(var record, _):
                defer { decoded += 1 }
                do {
                    let analyses = try prepared.map { try $0[decoded].get() }
                    record.status = .indexed
                    writes.append(
                        FileWrite(path: path, outcome: .indexed, write: catalog.replacement(record, writes: analyses)))
                } catch let error as CatalogError {
                    throw error
                } catch {
                    record.error = "\(error)"
                    writes.append(
                        FileWrite(
                            path: path, outcome: .failed("\(error)"), write: catalog.replacement(record, writes: [])))
                }
            }
        }
        return writes
    }

    /// The write that completes what `analyses` stored for an unchanged image, made from its photo.
    func completion(image id: Int64, modified: Double, photo: Photo, by analyses: [any PhotoAnalysis])
        throws(CatalogError) -> FileWrite
    {
        do {
            let completions = try analyses.map { try $0.completion(of: id, photo: photo, in: catalog) }
            return FileWrite(path: photo.path, outcome: .upgraded) { connection in
                try Catalog.setModified(modified, image: id, connection)
                for completion in completions { try completion(connection) }
            }
        } catch let error as CatalogError {
            throw error
        } catch {
            return FileWrite(
                path: photo.path, outcome: .failed("\(photo.path): cannot complete what is stored: \(error)"),
                write: nil)
        }
    }
}
