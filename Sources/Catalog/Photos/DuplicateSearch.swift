import FaceRecognition
import Foundation
import GRDB
import ImageKernels
import PhotoSimilarity

/// A group of copies of one photo among the indexed ones: the copy to keep, every copy with its distance
/// to that one, and the bytes the others take.
public struct DuplicateGroup: Sendable, Codable, Equatable {
    public struct Member: Sendable, Codable, Equatable {
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
    /// The groups of indexed photos whose prints lie within `threshold` of one another's or whose hashes
    /// differ in at most ``DuplicateGroups/hashDistance`` bits (linked through any chain of such pairs), and
    /// byte-identical files; exact over all pairs (``ClosePrints``, ``PerceptualHash/pairs(in:within:)``).
    /// Groups come largest saving first.
    public nonisolated func duplicateGroups(threshold: Float, context: RenderContext) throws(CatalogError)
        -> [DuplicateGroup]
    {
        guard threshold.isFinite, (0...2).contains(threshold) else {
            throw .invalidQuery("a threshold must be a cosine distance in 0…2, not \(threshold)")
        }
        struct Stored {
            let path: String
            let size: Int
            let hash: String
            let photoHash: PerceptualHash
            let copy: DuplicateGroups.Copy
        }
        let (photos, prints) = try read { db in
            var prints: [Float] = []
            let photos = try Row.fetchAll(
                db,
                sql: """
                    SELECT path, size, images.hash, width, height, sharpness, print, photo_prints.hash \
                    FROM photo_prints JOIN images ON images.id = image_id ORDER BY path
                    """
            ).map { row in
                prints += [Float](littleEndianBytes: row[6] as Data)
                return Stored(
                    path: row[0], size: row[1], hash: row[2],
                    photoHash: PerceptualHash(bits: UInt64(bitPattern: row[7] as Int64)),
                    copy: DuplicateGroups.Copy(
                        pixels: (row[3] as Int) * (row[4] as Int), sharpness: row[5], bytes: row[1]))
            }
            return (photos, prints)
        }
        let length = PhotoPrinter.length, count = photos.count
        guard count > 1 else { return [] }
        var pairs: [(Int, Int)]
        do {
            pairs = try ClosePrints.pairs(in: prints, count: count, threshold: threshold, context: context)
        } catch {
            throw .processing("cannot search the prints: \(error)")
        }
        pairs += PerceptualHash.pairs(in: photos.map(\.photoHash), within: DuplicateGroups.hashDistance)
        let identical = Dictionary(grouping: photos.indices) { "\(photos[$0].hash) \(photos[$0].size)" }.values
        pairs += identical.flatMap { same in same.dropFirst().map { (same[0], $0) } }
        let copies = photos.map(\.copy)
        func distance(_ a: Int, _ b: Int) -> Float {
            var dot: Float = 0
            for i in 0..<length { dot += prints[a * length + i] * prints[b * length + i] }
            return max(0, 1 - dot)
        }
        return DuplicateGroups.groups(count: count, pairs: pairs).map { group in
            let best = DuplicateGroups.best(of: group, copies: copies)
            let others = group.filter { $0 != best }.map { (index: $0, distance: distance(best, $0)) }
                .sorted { ($0.distance, photos[$0.index].path) < ($1.distance, photos[$1.index].path) }
            return DuplicateGroup(
                best: photos[best].path,
                photos: [DuplicateGroup.Member(path: photos[best].path, distance: 0)]
                    + others.map { DuplicateGroup.Member(path: photos[$0.index].path, distance: $0.distance) },
                bytes: others.reduce(0) { $0 + photos[$1.index].size })
        }.sorted { ($0.bytes, $1.best) > ($1.bytes, $0.best) }
    }
}
