import FaceRecognition
import Foundation
import GRDB
import ImageKernels

/// The stored faces as search galleries, one per descriptor parameters and device, kept between queries
/// (on the device, in the forms the search kernels read) and brought up to date with the `faces` table before
/// each one: whoever wrote to the file, this process or another, only the faces added or removed since
/// the last query move.
final class GalleryCache: @unchecked Sendable {
    private struct Key: Hashable {
        let parameters: DescriptorParameters
        let device: ObjectIdentifier
    }

    /// A gallery and what it was last brought up to date with.
    private struct Entry<Faces> {
        let gallery: Faces
        /// Face ids in the gallery.
        var faces: Set<Int64> = []
        /// The table's signature when last brought up to date (see ``FaceStore/signature(_:)``).
        var signature: [Int64] = []
    }

    private let lock = NSLock()
    private var entries: [Key: Entry<Gallery>] = [:]
    /// The faces' embeddings, per device.
    private var embeddings: [ObjectIdentifier: Entry<EmbeddingGallery>] = [:]

    /// The gallery of every stored face described with `parameters`, on the database context's device, up
    /// to date. Faces described with other parameters are an error: comparing them would be silently wrong.
    func gallery(of database: CBIRDatabase, parameters: DescriptorParameters) throws(DatabaseError) -> Gallery {
        let store = try database.faceIndexer().store
        let key = Key(parameters: parameters, device: ObjectIdentifier(database.context.device))
        return try cached(&entries, key, make: Gallery(parameters: parameters, context: database.context), from: database,
                          signature: store.signature, ids: store.idsWithDescriptors) { gallery, ids, db in
            try store.descriptors(ids, parameters: parameters, db) { batch in try gallery.append(encoded: batch) }
        }
    }

    /// The gallery of every stored face's embedding on the database context's device, up to date.
    func embeddingGallery(of database: CBIRDatabase) throws(DatabaseError) -> EmbeddingGallery {
        let store = try database.faceIndexer().store
        return try cached(&embeddings, ObjectIdentifier(database.context.device), make: EmbeddingGallery(context: database.context),
                          from: database, signature: store.embeddingSignature, ids: store.idsWithEmbeddings) { gallery, ids, db in
            try store.embeddings(ids, db) { batch in try gallery.append(batch) }
        }
    }

    /// The cached gallery for `key` (made with `make` the first time), brought up to date when the table's
    /// `signature` moved, in one read: faces no longer among `ids` removed, the new ones appended by
    /// `append` (given their ids, or nil for every stored face while the gallery is empty). A gallery left
    /// half updated by an error is rebuilt next time.
    private func cached<Key: Hashable, Faces: FaceGallery>(_ entries: inout [Key: Entry<Faces>], _ key: Key, make: @autoclosure () -> Faces,
                                                           from database: CBIRDatabase,
                                                           signature: @escaping @Sendable (Database) throws -> [Int64],
                                                           ids: @escaping @Sendable (Database) throws -> Set<Int64>,
                                                           append: @escaping @Sendable (Faces, [Int64]?, Database) throws -> Void)
    throws(DatabaseError) -> Faces {
        lock.lock()
        defer { lock.unlock() }
        var entry = entries.removeValue(forKey: key) ?? Entry(gallery: make())
        let current = try database.read { db in try signature(db) }
        if current != entry.signature {
            let (gallery, known) = (entry.gallery, entry.faces)
            entry.faces = try database.read { db in
                let stored = try ids(db)
                do {
                    for gone in known.subtracting(stored) { try gallery.remove(face: FaceID(gone)) }
                    gallery.reserveCapacity(stored.count)
                    try append(gallery, known.isEmpty ? nil : Array(stored.subtracting(known)), db)
                } catch RecognitionError.damagedDescriptor(let reason) {
                    throw DatabaseError.storage(path: "faces", reason: reason)
                } catch let error as RecognitionError {
                    throw DatabaseError.processing("\(error)")
                }
                return stored
            }
            entry.signature = current
        }
        entries[key] = entry
        return entry.gallery
    }
}

/// What the cache needs of a gallery besides appending: room for a number of faces, removing a face by id.
protocol FaceGallery: Sendable {
    func reserveCapacity(_ faceCount: Int)
    func remove(face: FaceID) throws(RecognitionError)
}

extension Gallery: FaceGallery {}
extension EmbeddingGallery: FaceGallery {}
