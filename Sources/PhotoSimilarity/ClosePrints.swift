import FaceRecognition
import ImageKernels

/// The pairs of prints that lie within a cosine distance of each other: the links of duplicate groups,
/// exact over all pairs, found on the embeddings' neighbour kernel so that no all-pairs matrix is held.
public enum ClosePrints {
    /// Every pair `(a, b)`, `a < b`, of the `count` L2-normalised prints packed in `prints` (``PhotoPrinter/length``
    /// values each) whose cosine distance is at most `threshold` (0…2), searched on `context`'s device.
    public static func pairs(in prints: [Float], count: Int, threshold: Float, context: RenderContext)
        throws(PhotoError) -> [(Int, Int)]
    {
        let length = PhotoPrinter.length
        guard threshold.isFinite, (0...2).contains(threshold) else {
            throw .invalidInput("a threshold must be a cosine distance in 0…2, not \(threshold)")
        }
        guard prints.count == count * length else {
            throw .invalidInput("\(prints.count) values are not \(count) prints of \(length)")
        }
        guard count > 1 else { return [] }
        // For unit vectors, squared Euclidean distance = 2 × cosine distance.
        let radius = max((2 * threshold).squareRoot(), 1e-6)
        let k = min(EmbeddingNeighbours.maximumNeighbours, count - 1)
        let found: [(query: Int, neighbour: Int, distance: Float)]
        do {
            let gallery = try context.makeResidentImage(
                ImageDescriptor(width: length, height: count, elementType: .float32), contents: prints[...])
            found = try EmbeddingNeighbours.pairs(
                in: gallery.image, count: count, queries: count, k: k, radius: radius, tileRows: count,
                context: context)
        } catch {
            throw .render(error)
        }
        var pairs = found.map { (min($0.query, $0.neighbour), max($0.query, $0.neighbour)) }
        // A print with k neighbours found may have more: compare it with every other one.
        let full = Dictionary(grouping: found, by: \.query).filter { $0.value.count == k }.keys
        for a in full.sorted() {
            for b in 0..<count where b != a && distance(between: a, and: b, in: prints) <= threshold {
                pairs.append((min(a, b), max(a, b)))
            }
        }
        pairs.sort { $0 < $1 }
        return pairs.enumerated().filter { $0.offset == 0 || pairs[$0.offset - 1] != $0.element }.map(\.element)
    }

    /// The cosine distance of prints `a` and `b` among the L2-normalised prints packed in `prints`: one pair
    /// on the host, where a kernel launch would cost more than the product.
    public static func distance(between a: Int, and b: Int, in prints: [Float]) -> Float {
        let length = PhotoPrinter.length
        var dot: Float = 0
        for i in 0..<length { dot += prints[a * length + i] * prints[b * length + i] }
        return max(0, 1 - dot)
    }
}
