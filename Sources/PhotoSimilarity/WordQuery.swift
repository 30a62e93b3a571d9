/// Words as classes to score photos by: each term (a noun as typed) names classes, a photo's score for a
/// term is the probability it shows one of them, and its score for the query is the product over the terms,
/// so that "dog beach" ranks first the photos likeliest to show both.
public struct WordQuery: Sendable {
    /// One noun of the query and the classes it names.
    public struct Term: Sendable, Equatable {
        /// The noun as typed (a run of words for a compound).
        public let noun: String
        /// The classes it names, in order.
        public let classes: [Int]
        /// How much each counts: 1 for a class under the noun, less for a class only near it.
        public let weights: [Float]
        /// Whether no class lies under the noun, and these are near it in WordNet instead.
        public let nearest: Bool

        /// A term naming `classes` with `weights` (default: 1 each).
        public init(noun: String, classes: [Int], weights: [Float]? = nil, nearest: Bool) {
            (self.noun, self.classes, self.nearest) = (noun, classes, nearest)
            self.weights = weights ?? classes.map { _ in 1 }
        }
    }

    public let terms: [Term]
    private let weights: [[Float]]

    /// A query of `terms`, whose classes are below `classCount` (others are left out).
    public init(terms: [Term], classCount: Int) {
        self.terms = terms
        weights = terms.map { term in
            var weights = [Float](repeating: 0, count: classCount)
            for (index, weight) in zip(term.classes, term.weights) where (0..<classCount).contains(index) {
                weights[index] = weight
            }
            return weights
        }
    }

    /// How well the photo matches: the product over the terms of its probability of showing each, the
    /// probability of each class weighted as the term weights it.
    public func score(_ photo: PhotoClasses) -> Float {
        weights.reduce(1) { $0 * photo.probability(weightedBy: $1) }
    }

    /// The `count` best of `photos` (every one when nil) by ``score(_:)``, best first, ties to the earlier
    /// photo; photos that score 0 (none of their kept classes is named) are left out.
    public func ranking(of photos: [PhotoClasses], best count: Int? = nil) -> [(index: Int, score: Float)] {
        Self.best(photos.map(score), count)
    }

    /// The `count` best (every one when nil) of photos that scored `scores`, best first, ties to the earlier
    /// photo; photos that score 0 left out.
    static func best(_ scores: [Float], _ count: Int?) -> [(index: Int, score: Float)] {
        guard count != 0 else { return [] }
        var scored: [(index: Int, score: Float)] = []
        for (index, score) in scores.enumerated() where score > 0 { scored.append((index, score)) }
        let ordered = { (a: (index: Int, score: Float), b: (index: Int, score: Float)) in
            (a.score, b.index) > (b.score, a.index)
        }
        guard let count, count < scored.count else { return scored.sorted(by: ordered) }
        // The best `count` kept in a sorted buffer: most photos fall below its last and are passed over.
        var best = Array(scored.prefix(count)).sorted(by: ordered)
        for candidate in scored.dropFirst(count) where ordered(candidate, best[count - 1]) {
            let position = best.firstIndex { ordered(candidate, $0) } ?? count - 1
            best.insert(candidate, at: position)
            best.removeLast()
        }
        return best
    }
}
