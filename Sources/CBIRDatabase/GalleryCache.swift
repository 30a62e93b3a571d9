import FaceRecognition
import Foundation
import GRDB
import ImageKernels

/// The stored faces as search galleries, one per descriptor parameters and device, kept between queries
/// (on the device, packed for the search kernels) and brought up to date with the `faces` table before
/// each one: whoever wrote to the file, this process or another, only the faces added or removed since
/// the last query move.
final class GalleryCache: @unchecked Sendable {
    private struct Key: Hashable {
        let parameters: DescriptorParameters
        let device: ObjectIdentifier
    }

    private struct Entry {
        let gallery: Gallery
        /// Face ids in the gallery.
        var faces: Set<Int64> = []
        /// The table's row count and largest id when last brought up to date: face ids are never reused
        /// (AUTOINCREMENT), so any insert raises the largest id and a delete alone lowers the count.
        var signature: [Int64] = []
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    /// The faces' embeddings, per device, with the face ids and signature they were brought up to date with.
    private var embeddings: [ObjectIdentifier: (gallery: EmbeddingGallery, faces: Set<Int64>, signature: [Int64])] = [:]

    /// The gallery of every stored face's embedding on the database context's device, up to date.
    func embeddingGallery(of database: CBIRDatabase) throws(DatabaseError) -> EmbeddingGallery {
        lock.lock()
        defer { lock.unlock() }
        let key = ObjectIdentifier(database.context.device), store = try database.faceIndexer().store
        var entry = embeddings[key] ?? (EmbeddingGallery(context: database.context), [], [])
        embeddings[key] = nil  // a half-updated gallery is rebuilt from scratch next time
        let signature = try database.read { db in try store.embeddingSignature(db) }
        if signature != entry.signature {
            let stored = try database.read { db in try store.idsWithEmbeddings(db) }
            do {
                for gone in entry.faces.subtracting(stored) { try entry.gallery.remove(face: FaceID(gone)) }
                entry.faces.formIntersection(stored)
                let added = Array(stored.subtracting(entry.faces))
                for start in stride(from: 0, to: added.count, by: 500) {
                    let ids = added[start..<min(added.count, start + 500)]
                    let batch = try database.read { db in try store.embeddings(ids, db) }
                    try entry.gallery.append(batch)
                    entry.faces.formUnion(batch.map(\.face.rawValue))
                }
            } catch let error as DatabaseError {
                throw error
            } catch {
                throw .processing("\(error)")
            }
            entry.signature = signature
        }
        embeddings[key] = entry
        return entry.gallery
    }

    /// The gallery of every stored face described with `parameters`, on the database context's device, up
    /// to date. Faces described with other parameters are an error: comparing them would be silently wrong.
    func gallery(of database: CBIRDatabase, parameters: DescriptorParameters) throws(DatabaseError) -> Gallery {
        lock.lock()
        defer { lock.unlock() }
        let context = database.context
        let key = Key(parameters: parameters, device: ObjectIdentifier(context.device))
        var entry = entries[key] ?? Entry(gallery: Gallery(parameters: parameters, context: context))
        do {
            try update(&entry, from: database)
        } catch {
            entries[key] = nil  // a half-updated gallery is rebuilt from scratch next time
            throw error
        }
        entries[key] = entry
        return entry.gallery
    }

    private func update(_ entry: inout Entry, from database: CBIRDatabase) throws(DatabaseError) {
        let parameters = entry.gallery.parameters, store = try database.faceIndexer().store
        let signature = try database.read { db in try store.signature(db) }
        guard signature != entry.signature else { return }
        let stored = try database.read { db in try store.ids(db) }
        for gone in entry.faces.subtracting(stored) {
            do { try entry.gallery.remove(face: FaceID(gone)) } catch { throw .processing("\(error)") }
            entry.faces.remove(gone)
        }
        let added = Array(stored.subtracting(entry.faces))
        entry.gallery.reserveCapacity(stored.count)
        for start in stride(from: 0, to: added.count, by: 500) {
            let ids = added[start..<min(added.count, start + 500)]
            let batch = try database.read { db in try store.descriptors(ids, parameters: parameters, db) }
            do { try entry.gallery.append(batch) } catch { throw .processing("\(error)") }
            entry.faces.formUnion(batch.map(\.face.rawValue))
        }
        entry.signature = signature
    }
}
