import FaceRecognition
import Foundation
import ImageKernels
import PhotoSimilarity

/// An indexed photo found like another, and how far it lies as "more like this" ranks photos
/// (`SimilarPrints`): the cosine distance of the query's expanded print to the photo's augmented one (near
/// 0 for the photo itself and its copies, about 0.1–0.3 between views of one object, up to 2).
public struct SimilarPhoto: Sendable, Codable, Equatable {
    public let image: Int64
    public let path: String
    public let distance: Float
}

extension Catalog {
    /// The `top` indexed photos nearest to `print` (a photo's L2-normalised print), nearest first, ranked on
    /// `context`'s device with the search kernel of face embeddings as `SimilarPrints` ranks them: over every
    /// printed photo (the gallery stays on the device between searches and follows the database's changes),
    /// or, in a large PostgreSQL catalog, over the candidates its index finds
    /// (`candidateGallery(_:near:top:among:context:)`).
    public nonisolated func similarPhotos(to print: [Float], top: Int, context: RenderContext) throws(CatalogError)
        -> [SimilarPhoto]
    {
        try similarPhotos(to: [print], top: top, context: context)[0]
    }

    /// The `top` indexed photos nearest to each of `prints`, as ``similarPhotos(to:top:context:)`` finds them
    /// for one, the prints read once for all. Photos whose files are no longer what was indexed (gone, or
    /// other bytes: ``IndexedFile/staleness(of:)``) are left out, and more asked for in their place.
    public nonisolated func similarPhotos(to prints: [[Float]], top: Int, context: RenderContext)
        throws(CatalogError) -> [[SimilarPhoto]]
    {
        guard top > 0 else { throw .invalidQuery("--top must be at least 1") }
        return try currentPhotos(top: top) { asked throws(CatalogError) in
            try nearestImages(to: prints, top: asked ?? top, context: context).map { nearest in
                nearest.map { ($0.image, $0.distance) }
            }
        }.map { found in found.map { SimilarPhoto(image: $0.image, path: $0.path, distance: $0.match) } }
    }

    /// The `top` printed photos nearest to each of `prints` as `SimilarPrints` ranks them, with the cosine
    /// distances of the expanded queries to their augmented prints; their files unchecked. A large PostgreSQL
    /// catalog ranks the candidates its index finds near the plain prints, augmented by the neighbour lists
    /// this machine last made (`GalleryCache.savedNeighbourhoods(of:)`; none: their rooted prints).
    private nonisolated func nearestImages(to prints: [[Float]], top: Int, context: RenderContext)
        throws(CatalogError) -> [[(image: Int64, distance: Float)]]
    {
        let expansion = SimilarPrints.expansion, queries = prints.map(PrintExpansion.rooted)
        var nearest = prints.map { _ in TopImages(top) }
        do {
            let gallery: EmbeddingGallery, neighbourhoods: PrintNeighbourhoods
            if let candidates = try candidateGallery(.photoPrints, near: prints, top: top, context: context) {
                neighbourhoods =
                    galleries.savedNeighbourhoods(of: self, count: expansion.neighbourCount)
                    ?? PrintNeighbourhoods(count: expansion.neighbourCount)
                let ids = Set(candidates.faceIDs.map(\.rawValue))
                let augmented = try reading { connection in
                    try SimilarPrints.augmented(ids, neighbourhoods: neighbourhoods, connection)
                }
                gallery = EmbeddingGallery(length: PhotoPrinter.length, context: context)
                try gallery.append(augmented.sorted { $0.key < $1.key }.map { ($1, FaceID($0), ImageID($0)) })
            } else {
                let similar = try galleries.similarPrints(of: self, context: context)
                (gallery, neighbourhoods) = (similar.gallery, similar.neighbourhoods)
            }
            // α query expansion: each query summed with the augmented prints it finds first.
            var first = prints.map { _ in TopImages(expansion.neighbourCount) }
            try gallery.search(queries, into: &first)
            let hits = Set(first.flatMap { $0.matches.map(\.image.rawValue) })
            let augmented = try reading { connection in
                try SimilarPrints.augmented(hits, neighbourhoods: neighbourhoods, connection)
            }
            let expanded = zip(queries, first).map { query, found in
                expansion.expanded(
                    query,
                    with: found.matches.compactMap { match in
                        augmented[match.image.rawValue].map { ($0, Self.similarity(ofDistance: match.distance)) }
                    })
            }
            try gallery.search(expanded, into: &nearest)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .processing("\(error)")
        }
        return nearest.map { found in
            found.matches.map { (image: $0.image.rawValue, distance: 1 - Self.similarity(ofDistance: $0.distance)) }
        }
    }

    /// The cosine similarity of unit vectors the search kernel found `distance` apart: the Euclidean
    /// distance d is √(2 − 2 cos).
    private static func similarity(ofDistance distance: Float) -> Float { 1 - distance * distance / 2 }

    /// Brings what "more like this" ranks by (`SimilarPrints`: the augmented prints and their neighbour
    /// lists) up to date with the stored prints and saves it beside the database, so that the next search, in
    /// this process or a new one, need not: indexing ends with it. A large PostgreSQL catalog, whose searches
    /// rank its index's candidates and never read every print, is left as it is.
    public nonisolated func prepareSimilarPhotos(context: RenderContext) throws(CatalogError) {
        guard try candidateIndex(for: .photoPrints) == nil else { return }
        _ = try galleries.similarPrints(of: self, context: context)
    }

    /// The stored print of the photo at `path` (any spelling of it), if it was indexed and printed.
    public nonisolated func storedPrint(ofPhotoAt path: String) throws(CatalogError) -> [Float]? {
        let stored = storedPath(path)
        return try readingStatement { connection in try PhotoStore().print(ofImageAt: stored, connection) }
    }
}
