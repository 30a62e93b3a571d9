import Foundation
import ImageKernels

/// Sharper "more like this" from the same prints, three steps of the retrieval literature that need no
/// training: each print's values square-rooted and the print L2-normalised again (power normalisation: a
/// few strong features no longer outweigh many weak ones), each stored print replaced by the weighted sum of
/// itself and its nearest stored prints (database-side augmentation), and a query likewise by the sum of
/// itself and the augmented prints it finds first (α query expansion). Each neighbour is weighted by its
/// cosine similarity raised to ``weightPower`` (α), the print itself by 1 (Radenović, Tolias and Chum,
/// "Fine-tuning CNN image retrieval with no human annotation", 2018).
///
/// Near-duplicate groups keep the plain prints: augmentation pulls a photo towards its neighbours, which is
/// what ranking wants and grouping copies does not.
public struct PrintExpansion: Sendable, Equatable {
    /// Nearest prints each print is summed with (k).
    public var neighbourCount: Int
    /// The power of the neighbours' similarities in their weights (α; 0 weighs every neighbour as the print).
    public var weightPower: Float

    /// What ranks UKBench dev best (photo-bench's expansion table in `Benchmarks/RESULTS.md`).
    public static let standard = PrintExpansion(neighbourCount: 3, weightPower: 3)

    public init(neighbourCount: Int, weightPower: Float) {
        self.neighbourCount = neighbourCount
        self.weightPower = weightPower
    }

    /// The print with each value's square root (the negative ones' negated), L2-normalised again.
    public static func rooted(_ print: [Float]) -> [Float] {
        normalized(print.map { $0 < 0 ? -(-$0).squareRoot() : $0.squareRoot() })
    }

    /// `print` summed with `neighbours` (prints of the same length), each weighted by the power of its
    /// similarity to `print` (negative similarities count as 0), L2-normalised.
    public func expanded(_ print: [Float], with neighbours: [(print: [Float], similarity: Float)]) -> [Float] {
        var sum = print
        for neighbour in neighbours {
            let weight = Float(pow(Double(max(0, neighbour.similarity)), Double(weightPower)))
            for index in sum.indices { sum[index] += weight * neighbour.print[index] }
        }
        return Self.normalized(sum)
    }

    /// Print `id` of `prints` summed with its neighbours (the first ``neighbourCount`` of its list in
    /// `neighbourhoods`), as ``expanded(_:with:)`` sums them; nil where `prints` lacks it.
    public func augmented(_ id: Int64, in prints: [Int64: [Float]], neighbourhoods: PrintNeighbourhoods) -> [Float]? {
        guard let print = prints[id] else { return nil }
        let neighbours = (neighbourhoods.lists[id] ?? []).prefix(neighbourCount).compactMap { neighbour in
            prints[neighbour.id].map { (print: $0, similarity: neighbour.similarity) }
        }
        return expanded(print, with: neighbours)
    }

    /// The cosine similarity of two L2-normalised prints of the same length.
    public static func similarity(_ a: [Float], _ b: [Float]) -> Float {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return 0 }
                return RowArithmetic.dot(first, second, count: min(a.count, b.count))
            }
        }
    }

    private static func normalized(_ values: [Float]) -> [Float] {
        let length = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return length > 0 ? values.map { $0 / length } : values
    }
}
