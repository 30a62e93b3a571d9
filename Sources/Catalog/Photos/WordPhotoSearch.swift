import Foundation
import PhotoSimilarity

/// An indexed photo found by words, and how likely the classifier finds it shows them (`WordQuery.score(_:)`:
/// up to 1).
public struct WordMatch: Sendable, Codable, Equatable {
    public let image: Int64
    public let path: String
    public let score: Float
}

extension Catalog {
    /// The `top` indexed photos (every one that shows any of the words' classes when nil) likeliest to show
    /// what `query` names, best first, ranked by their stored classes (kept in memory, as lists per class,
    /// between searches while the prints' table is unchanged). Photos whose files are no longer what was indexed
    /// (``IndexedFile/staleness(of:)``) are left out, and more asked for in their place.
    public nonisolated func photos(showing query: WordQuery, top: Int?) throws(CatalogError) -> [WordMatch] {
        if let top, top < 1 { throw .invalidQuery("--top must be at least 1") }
        let stored = try galleries.photoClasses(of: self)
        return try currentPhotos(top: top) { asked in
            [stored.postings.ranking(for: query, best: asked).map { (stored.images[$0.index], $0.score) }]
        }[0].map { WordMatch(image: $0.image, path: $0.path, score: $0.match) }
    }

    /// Whether any indexed photo has classes to be found by (photos printed before classes were kept have none
    /// until the next `cbir index`).
    public nonisolated func hasPhotoClasses() throws(CatalogError) -> Bool {
        try !galleries.photoClasses(of: self).images.isEmpty
    }
}

/// Every stored photo's classes, as lists per class (`ClassPostings`, whose photo n is `images[n]`), as of a
/// tag of the prints' table.
struct StoredPhotoClasses: Sendable {
    let images: [Int64]
    let postings: ClassPostings
    let tag: Data
}
