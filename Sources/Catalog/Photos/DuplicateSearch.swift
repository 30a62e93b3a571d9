import Foundation
import GRDB
import ImageKernels
import PhotoSimilarity

/// A group of copies of one photo among the indexed ones: the copy to keep, every copy with its distance
/// to that one, and the bytes the others take.
public struct DuplicateGroup: Sendable, Codable, Equatable {
    public struct Member: Sendable, Codable, Equatable {
        /// The image's id in the catalog.
        public let image: Int64
        public let path: String
        /// The cosine distance of its print to the kept copy's (0 for byte-identical files).
        public let distance: Float
    }

    public let best: String
    /// The kept copy first, then the others by distance.
    public let photos: [Member]
    /// What deleting the other copies would free.
    public let bytes: Int
}

extension Catalog {
    /// A tag that changes whenever a photo's print is added, replaced or removed (by any process): what a
    /// cache of similar photos or duplicate groups is kept by.
    public nonisolated func printsTag() throws(CatalogError) -> Data {
        try read { db in try TableTags.tag(of: PhotoStore.table, db) }
    }

    /// The groups of indexed photos whose prints lie within `threshold` of one another's or whose hashes
    /// differ in at most ``DuplicateGroups/hashDistance`` bits (linked through any chain of such pairs), and
    /// byte-identical files; exact over all pairs (``ClosePrints``, ``PerceptualHash/pairs(in:within:)``).
    /// The images `excluded` are left out (``stalePrintedPhotos()``: files no longer what was indexed, which
    /// no group may advise on). Groups come largest saving first.
    public nonisolated func duplicateGroups(
        threshold: Float, context: RenderContext, excluding excluded: Set<Int64> = []
    )
        throws(CatalogError) -> [DuplicateGroup]
    {
        let photos = try read { db in try PhotoStore().printedPhotos(db) }.filter { !excluded.contains($0.entry.image) }
        let prints = photos.flatMap(\.entry.print)
        var pairs: [(Int, Int)]
        do {
            pairs = try ClosePrints.pairs(in: prints, count: photos.count, threshold: threshold, context: context)
        } catch .invalidInput(let reason) {
            throw .invalidQuery(reason)
        } catch {
            throw .processing("cannot search the prints: \(error)")
        }
        pairs += PerceptualHash.pairs(in: photos.map(\.entry.hash), within: DuplicateGroups.hashDistance)
        let identical = Dictionary(grouping: photos.indices) { "\(photos[$0].contentHash) \(photos[$0].size)" }.values
        pairs += identical.flatMap { same in same.dropFirst().map { (same[0], $0) } }
        let copies = photos.map {
            DuplicateGroups.Copy(pixels: $0.pixels, sharpness: $0.entry.sharpness, bytes: $0.size)
        }
        func member(_ index: Int, distance: Float) -> DuplicateGroup.Member {
            DuplicateGroup.Member(image: photos[index].entry.image, path: photos[index].path, distance: distance)
        }
        return DuplicateGroups.groups(count: photos.count, pairs: pairs).map { group in
            let best = DuplicateGroups.best(of: group, copies: copies)
            let others = group.filter { $0 != best }
                .map { (index: $0, distance: ClosePrints.distance(between: best, and: $0, in: prints)) }
                .sorted { ($0.distance, photos[$0.index].path) < ($1.distance, photos[$1.index].path) }
            return DuplicateGroup(
                best: photos[best].path,
                photos: [member(best, distance: 0)] + others.map { member($0.index, distance: $0.distance) },
                bytes: others.reduce(0) { $0 + photos[$1.index].size })
        }.sorted { ($0.bytes, $1.best) > ($1.bytes, $0.best) }
    }
}
