import FaceRecognition
import Foundation
import ImageKernels
import PhotoSimilarity

/// An indexed photo found like another, and how far it lies: the cosine distance of their prints (0 for
/// the same print, about 0.1 between copies, 0.2–0.4 between views of one object, up to 2).
public struct SimilarPhoto: Sendable, Codable, Equatable {
    public let image: Int64
    public let path: String
    public let distance: Float
}

extension Catalog {
    /// The `top` indexed photos nearest to `print` (a photo's L2-normalised print), nearest first, ranked on
    /// `context`'s device with the search kernel of face embeddings: over every printed photo (the gallery of
    /// prints stays on the device between searches and follows the database's changes), or, in a large
    /// PostgreSQL catalog, over the candidates its index finds (`candidateGallery(_:near:top:among:context:)`).
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
        var asked = top, current: [Int64: String] = [:], checked: Set<Int64> = []
        while true {
            let nearest = try nearestImages(to: prints, top: asked, context: context)
            let unchecked = Set(nearest.joined().map(\.image)).subtracting(checked)
            for (id, record) in try records(of: unchecked) where IndexedFile.staleness(of: record) == nil {
                current[id] = record.path
            }
            checked.formUnion(unchecked)
            let found = nearest.map { matches in
                matches.compactMap { match in
                    current[match.image].map { SimilarPhoto(image: match.image, path: $0, distance: match.distance) }
                }
            }
            // Fewer found than asked: every printed photo was seen.
            if found.allSatisfy({ $0.count >= top }) || nearest.allSatisfy({ $0.count < asked }) {
                return found.map { Array($0.prefix(top)) }
            }
            // Twice as many: a library with many files gone (a share not mounted) takes a few rounds, not one
            // a photo.
            asked *= 2
        }
    }

    /// The `top` printed photos nearest to each of `prints`, with their cosine distances; their files unchecked.
    private nonisolated func nearestImages(to prints: [[Float]], top: Int, context: RenderContext)
        throws(CatalogError) -> [[(image: Int64, distance: Float)]]
    {
        var nearest = prints.map { _ in TopImages(top) }
        do {
            let gallery =
                try candidateGallery(.photoPrints, near: prints, top: top, context: context)
                ?? galleries.printGallery(of: self, context: context)
            try gallery.search(prints, into: &nearest)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .processing("\(error)")
        }
        // Unit vectors: the Euclidean distance d the kernel gives is √(2 − 2 cos), so the cosine distance is d² ÷ 2.
        return nearest.map { found in
            found.matches.map { (image: $0.image.rawValue, distance: $0.distance * $0.distance / 2) }
        }
    }

    /// The stored print of the photo at `path` (any spelling of it), if it was indexed and printed.
    public nonisolated func storedPrint(ofPhotoAt path: String) throws(CatalogError) -> [Float]? {
        let stored = storedPath(path)
        return try readingStatement { connection in try PhotoStore().print(ofImageAt: stored, connection) }
    }
}
