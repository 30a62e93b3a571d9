import Foundation
import PhotoSimilarity

/// An indexed photo found by words, and how likely the classifier finds it shows them (``WordQuery/score(_:)``:
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
        var asked = top, current: [Int64: String] = [:], checked: Set<Int64> = []
        while true {
            let ranked = stored.postings.ranking(for: query, best: asked)
            let images = ranked.map { (image: stored.images[$0.index], score: $0.score) }
            let unchecked = Set(images.map(\.image)).subtracting(checked)
            for (id, record) in try records(of: unchecked) where IndexedFile.staleness(of: record) == nil {
                current[id] = record.path
            }
            checked.formUnion(unchecked)
            let found = images.compactMap { match in
                current[match.image].map { WordMatch(image: match.image, path: $0, score: match.score) }
            }
            // Fewer found than asked for, though the ranking had more: files gone; ask for twice as many.
            guard let top, let wanted = asked, found.count < top, ranked.count == wanted else {
                return top.map { Array(found.prefix($0)) } ?? found
            }
            asked = wanted * 2
        }
    }

    /// Whether any indexed photo has classes to be found by (photos printed before classes were kept have none
    /// until the next `cbir index`).
    public nonisolated func hasPhotoClasses() throws(CatalogError) -> Bool {
        try !galleries.photoClasses(of: self).images.isEmpty
    }
}

/// Every stored photo's classes, as lists per class (``ClassPostings``, whose photo n is `images[n]`), as of a
/// tag of the prints' table.
struct StoredPhotoClasses: Sendable {
    let images: [Int64]
    let postings: ClassPostings
    let tag: Data
}
