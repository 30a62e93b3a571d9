import Dispatch
import FaceRecognition
import ImageKernels

/// The pairs of prints that lie within a cosine distance of each other: the links of duplicate groups,
/// exact over all pairs, found on the embeddings' neighbour kernel so that no all-pairs matrix is held.
/// Thousands of prints are screened by shorter stand-ins first (`PrintProjection`): most pairs of
/// photos lie far apart, and their stand-ins show it at a fifth of the cost.
public enum ClosePrints {
    /// From how many prints on the stand-ins pay for finding their basis.
    static let screenedCount = 4096
    /// Directions the stand-ins keep: a fifth of a print, enough for random prints too (whose length
    /// spreads evenly over every direction) to lie beyond the duplicates' threshold.
    static let standInDimensions = 256
    /// Rounding allowance on stand-ins' squared distances: a left-out length near zero, found as the square
    /// root of a difference of squares near 1, may be off by 0.002.
    static let standInSlack: Float = 0.02
    /// The largest share of pairs measured in full for which screening still pays: a pair measured in full
    /// costs several times one screened in the search's tiles.
    static let screenedShare = 0.25

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
            let standIns = try screen(prints, count: count, radius: radius, context: context)
            found = try EmbeddingNeighbours.pairs(
                in: gallery.image, standIns: standIns, count: count, queries: count, k: k, radius: radius,
                tileRows: count, context: context)
        } catch {
            throw .render(error)
        }
        var pairs = found.map { (min($0.query, $0.neighbour), max($0.query, $0.neighbour)) }
        // A print with k neighbours found may have more (one of a burst): compare it with every other one,
        // the prints spread over the cores.
        let full = Dictionary(grouping: found, by: \.query).filter { $0.value.count == k }.keys.sorted()
        var more = [[(Int, Int)]](repeating: [], count: full.count)
        more.withUnsafeMutableBufferPointer { more in
            nonisolated(unsafe) let more = more
            DispatchQueue.concurrentPerform(iterations: full.count) { i in
                let a = full[i]
                more[i] = (0..<count).filter { $0 != a && distance(between: a, and: $0, in: prints) <= threshold }
                    .map { (min(a, $0), max(a, $0)) }
            }
        }
        pairs += more.joined()
        pairs.sort { $0 < $1 }
        return pairs.enumerated().filter { $0.offset == 0 || pairs[$0.offset - 1] != $0.element }.map(\.element)
    }

    /// Stand-ins for thousands of prints, unless the prints lie too close by them for screening to pay:
    /// prints whose length spreads over every direction (random ones) do at loose thresholds.
    private static func screen(_ prints: [Float], count: Int, radius: Float, context: RenderContext)
        throws(RenderError) -> (image: Image, slack: Float)?
    {
        guard count >= screenedCount else { return nil }
        let projection = try PrintProjection(
            sampling: prints, count: count, dimensions: standInDimensions, context: context)
        guard projection.dimensions > 0 else { return nil }
        let values = try projection.standIns(of: prints, count: count, context: context)
        let reach = radius * radius + standInSlack
        guard projection.shareWithinReach(of: values, count: count, reach: reach) <= screenedShare else { return nil }
        let image = try context.makeResidentImage(
            ImageDescriptor(width: projection.length, height: count, elementType: .float32), contents: values[...])
        return (image.image, standInSlack)
    }

    /// The cosine distance of prints `a` and `b` among the L2-normalised prints packed in `prints`: one pair
    /// on the host, where a kernel launch would cost more than the product.
    public static func distance(between a: Int, and b: Int, in prints: [Float]) -> Float {
        let length = PhotoPrinter.length
        return prints.withUnsafeBufferPointer { prints in
            guard let rows = prints.baseAddress else { return 1 }
            return max(0, 1 - RowArithmetic.dot(rows + a * length, rows + b * length, count: length))
        }
    }
}
