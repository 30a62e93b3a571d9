import FaceRecognition
import Foundation
import PhotoSimilarity

/// The photos' prints as "more like this" ranks them (``PrintExpansion``, ``expansion``): each stored print
/// square-rooted and summed with its nearest stored prints (database-side augmentation), in a gallery on a
/// device, with the neighbour lists it was made from. A query is square-rooted too and summed with the
/// augmented prints it finds first (α query expansion) before it is ranked against them. Near-duplicate
/// groups keep the plain prints.
struct SimilarPrints: Sendable {
    /// The steps' parameters.
    static let expansion = PrintExpansion.standard

    /// The augmented prints, each photo a row whose face and image ids are the photo's.
    let gallery: EmbeddingGallery
    let neighbourhoods: PrintNeighbourhoods
    /// The prints table's tag they were made from.
    let tag: Data

    /// The augmented prints of the photos `ids`, made from their stored prints and those of their neighbours
    /// in `neighbourhoods` (which may be older than the prints: a neighbour gone is left out), read through
    /// `connection`: the values ``GalleryCache/similarPrints(of:context:)`` puts in the gallery.
    static func augmented(
        _ ids: Set<Int64>, neighbourhoods: PrintNeighbourhoods, _ connection: any StoreConnection
    ) throws -> [Int64: [Float]] {
        let needed = ids.union(
            ids.flatMap { (neighbourhoods.lists[$0] ?? []).prefix(expansion.neighbourCount).map(\.id) })
        var rooted: [Int64: [Float]] = [:]
        try PhotoStore().prints(needed.sorted(), connection) { batch in
            for row in batch { rooted[row.image.rawValue] = PrintExpansion.rooted(row.embedding) }
        }
        var prints: [Int64: [Float]] = [:]
        for id in ids { prints[id] = expansion.augmented(id, in: rooted, neighbourhoods: neighbourhoods) }
        return prints
    }
}
