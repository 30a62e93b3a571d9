import FaceRecognition
import Foundation
import ImageKernels
import PhotoSimilarity

/// The stored faces as search galleries, one per descriptor parameters and device, kept between queries
/// (on the device, in the forms the search kernels read) and brought up to date with the database before
/// each one: whoever wrote to the file, this process or another, only the faces added or removed since
/// the last query move. A new process takes the descriptors, embeddings and prints from the files beside
/// the database (`DatabaseFiles.caches`) where those still hold them, and writes a file after reading its
/// rows all from the database.
final class GalleryCache: @unchecked Sendable {
    private struct Key: Hashable {
        let parameters: DescriptorParameters
        let device: ObjectIdentifier
    }

    /// A gallery and what it was last brought up to date with.
    private struct Entry<Faces: Sendable>: Sendable {
        let gallery: Faces
        /// Face ids in the gallery.
        var faces: Set<Int64> = []
        /// Its table's tag when last brought up to date (see ``FaceStore/addTags(_:)``).
        var tag: Data?
    }

    private let lock = NSLock()
    private var entries: [Key: Entry<Gallery>] = [:]
    /// The faces' embeddings, per device.
    private var embeddings: [ObjectIdentifier: Entry<EmbeddingGallery>] = [:]
    /// The photos' prints as "more like this" ranks them, per device.
    private var similar: [ObjectIdentifier: SimilarPrints] = [:]
    /// The photos' classes, to find them by words.
    private var classes: StoredPhotoClasses?

    /// The gallery of every stored face described with `parameters`, on `context`'s device, up to date.
    /// Faces described with other parameters are an error: comparing them would be silently wrong.
    func gallery(of database: Catalog, parameters: DescriptorParameters, context: RenderContext) throws(CatalogError)
        -> Gallery
    {
        let store = database.store, path = database.files.gallery
        let file: GalleryFile<Gallery> = (
            read: { tag in
                (try? Gallery(contentsOf: path, parameters: parameters, tag: tag, context: context)).map {
                    ($0, Set($0.faceIDs.map(\.rawValue)))
                }
            }, write: { gallery, tag in try? gallery.write(to: path, tag: tag) }
        )
        return try cached(
            &entries, Key(parameters: parameters, device: ObjectIdentifier(context.device)),
            make: Gallery(parameters: parameters, context: context), from: database,
            tag: { connection in try TableTags.tag(of: FaceStore.descriptorsTable, connection) },
            ids: store.idsWithDescriptors, file: file,
            append: { gallery, ids, connection in
                try store.descriptors(ids, parameters: parameters, connection) { batch in
                    try gallery.append(encoded: batch)
                }
            })
    }

    /// The gallery of every stored face's embedding on `context`'s device, up to date.
    func embeddingGallery(of database: Catalog, context: RenderContext) throws(CatalogError) -> EmbeddingGallery {
        let store = database.store
        return try cached(
            &embeddings, ObjectIdentifier(context.device), make: EmbeddingGallery(context: context),
            from: database, tag: { connection in try TableTags.tag(of: FaceStore.embeddingsTable, connection) },
            ids: store.idsWithEmbeddings,
            file: Self.file(database.files.embeddings, length: FaceEmbedder.length, context: context),
            append: { gallery, ids, connection in
                try store.embeddings(ids, connection) { batch in try gallery.append(batch) }
            })
    }

    /// The photos' prints as "more like this" ranks them (``SimilarPrints``) on `context`'s device, up to
    /// date with the stored prints. Unchanged, it is kept; changed, every stored print is read again and the
    /// neighbour lists are brought up to date (``PrintNeighbourhoods/update(to:)``), so that only the
    /// augmented prints of photos whose list changed, and of photos new or gone, move in the gallery. A new
    /// process reads the gallery and the lists from their files beside the database while they hold the
    /// stored prints, and otherwise updates the lists it finds there.
    func similarPrints(of database: Catalog, context: RenderContext) throws(CatalogError) -> SimilarPrints {
        let tag = Self.printsTag
        let current = try database.readingStatement(tag)
        let key = ObjectIdentifier(context.device)
        lock.lock()
        defer { lock.unlock() }
        if let kept = similar[key], kept.tag == current { return kept }
        let start = similar.removeValue(forKey: key)
        let expansion = SimilarPrints.expansion, files = database.files
        let entry = try database.reading { connection in
            let current = try tag(connection)
            if let start, start.tag == current { return start }
            let saved =
                start == nil
                ? PrintNeighbourhoodsFile.read(files.printNeighbours, count: expansion.neighbourCount) : nil
            if let saved, saved.tag == current,
                let gallery = try? EmbeddingGallery(
                    contentsOf: files.similarPrints, length: PhotoPrinter.length, tag: current, context: context)
            {
                return SimilarPrints(gallery: gallery, neighbourhoods: saved.neighbourhoods, tag: current)
            }
            var rooted: [Int64: [Float]] = [:]
            try PhotoStore().prints(nil, connection) { batch in
                for row in batch { rooted[row.image.rawValue] = PrintExpansion.rooted(row.embedding) }
            }
            let before =
                start?.neighbourhoods ?? saved?.neighbourhoods ?? PrintNeighbourhoods(count: expansion.neighbourCount)
            var neighbourhoods = before
            neighbourhoods.update(to: PrintTable(rooted))
            // A photo's augmented print moves where its list did; without a gallery kept, every one is made.
            let gallery = start?.gallery ?? EmbeddingGallery(length: PhotoPrinter.length, context: context)
            let moved = Set(before.lists.keys).union(rooted.keys).filter { id in
                start == nil || before.lists[id] != neighbourhoods.lists[id]
            }
            do {
                let held = Set(gallery.faceIDs.map(\.rawValue))
                for id in moved where held.contains(id) { try gallery.remove(face: FaceID(id)) }
                let rows = moved.sorted().compactMap { id in
                    expansion.augmented(id, in: rooted, neighbourhoods: neighbourhoods).map {
                        (embedding: $0, face: FaceID(id), image: ImageID(id))
                    }
                }
                gallery.reserveCapacity(rooted.count)
                try gallery.append(rows)
                if start == nil {
                    try? gallery.write(to: files.similarPrints, tag: current)
                }
            } catch {
                throw CatalogError.processing("\(error)")
            }
            PrintNeighbourhoodsFile.write(neighbourhoods, to: files.printNeighbours, tag: current)
            return SimilarPrints(gallery: gallery, neighbourhoods: neighbourhoods, tag: current)
        }
        similar[key] = entry
        return entry
    }

    /// Every stored photo's classes, read again whenever the prints' table changed.
    func photoClasses(of database: Catalog) throws(CatalogError) -> StoredPhotoClasses {
        let tag = Self.printsTag
        let current = try database.readingStatement(tag)
        if let kept = lock.withLock({ classes }), kept.tag == current { return kept }
        let read = try database.reading { connection in
            let rows = try PhotoStore().classes(connection)
            return StoredPhotoClasses(
                images: rows.map(\.image), postings: ClassPostings(rows.map(\.classes)), tag: try tag(connection))
        }
        lock.withLock { classes = read }
        return read
    }

    /// The neighbour lists this process or machine last made of the photos' prints, however old (from the
    /// gallery kept for any device, else from their file), without reading the prints: for searches among a
    /// large catalog's candidates, which never read every print.
    func savedNeighbourhoods(of database: Catalog, count: Int) -> PrintNeighbourhoods? {
        lock.withLock { similar.values.first?.neighbourhoods }
            ?? PrintNeighbourhoodsFile.read(database.files.printNeighbours, count: count)?.neighbourhoods
    }

    /// The tag of the photos' prints table, which their prints, neighbour lists and classes follow.
    private static let printsTag = { @Sendable (connection: any StoreConnection) throws -> Data in
        try TableTags.tag(of: PhotoStore.table, connection)
    }

    /// An embedding gallery's file at `path`, of rows of `length` values.
    private static func file(_ path: String, length: Int, context: RenderContext) -> GalleryFile<EmbeddingGallery> {
        (
            read: { tag in
                (try? EmbeddingGallery(contentsOf: path, length: length, tag: tag, context: context)).map {
                    ($0, Set($0.faceIDs.map(\.rawValue)))
                }
            }, write: { gallery, tag in try? gallery.write(to: path, tag: tag) }
        )
    }

    /// Reading a gallery from its file, where that holds the faces of a tag (with their ids), and writing it.
    private typealias GalleryFile<Faces> = (
        read: @Sendable (Data) -> (Faces, Set<Int64>)?, write: @Sendable (Faces, Data) -> Void
    )

    /// The cached gallery for `key`, brought up to date when its table's `tag` moved, in one read. The first
    /// time it is read from its `file` where that holds the faces of the tag, else made with `make`; then
    /// faces no longer among `ids` are removed and the new ones appended by `append` (given their ids, or nil
    /// for every stored face while the gallery is empty). A gallery filled with every face that way is written
    /// to its file for the next process. A gallery left half updated by an error is rebuilt next time.
    private func cached<Key: Hashable, Faces: FaceGallery>(
        _ entries: inout [Key: Entry<Faces>], _ key: Key, make: @autoclosure () -> Faces,
        from database: Catalog, tag: @escaping @Sendable (any StoreConnection) throws -> Data,
        ids: @escaping @Sendable (any StoreConnection) throws -> Set<Int64>, file: GalleryFile<Faces>?,
        append: @escaping @Sendable (Faces, [Int64]?, any StoreConnection) throws -> Void
    )
        throws(CatalogError) -> Faces
    {
        // Unchanged, the common case, costs one statement, read before the lock: on a server it is a round
        // trip, which would hold up every other search.
        let current = try database.readingStatement { connection in try tag(connection) }
        lock.lock()
        defer { lock.unlock() }
        if let kept = entries[key], kept.tag == current { return kept.gallery }
        let start = entries.removeValue(forKey: key) ?? Entry(gallery: make())
        let entry = try database.reading { connection in
            let current = try tag(connection)
            if start.tag == current { return start }
            if start.tag == nil, let (gallery, faces) = file?.read(current) {
                return Entry(gallery: gallery, faces: faces, tag: current)
            }
            let (gallery, known) = (start.gallery, start.faces), stored = try ids(connection)
            do {
                for gone in known.subtracting(stored) { try gallery.remove(face: FaceID(gone)) }
                let added = known.isEmpty ? nil : Array(stored.subtracting(known))
                if added?.isEmpty != true {
                    gallery.reserveCapacity(stored.count)
                    try append(gallery, added, connection)
                }
            } catch RecognitionError.damagedDescriptor(let reason) {
                throw CatalogError.storage(path: "faces", reason: reason)
            } catch let error as RecognitionError {
                throw CatalogError.processing("\(error)")
            }
            if known.isEmpty { file?.write(gallery, current) }
            return Entry(gallery: gallery, faces: stored, tag: current)
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
