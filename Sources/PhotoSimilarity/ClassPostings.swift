/// A library's photos' kept classes turned around: for each class, the photos that keep it and their
/// probabilities. A word then reads only the lists of the classes it names ("car": 12 of 1,000) instead of
/// every class of every photo, and the lists take less memory than the photos' own arrays.
public struct ClassPostings: Sendable {
    /// How many photos the lists are of.
    public let photoCount: Int
    /// Where each class's list starts in `photos` and `probabilities` (one more for the end).
    private let starts: [Int]
    private let photos: [UInt32]
    private let probabilities: [Float]

    /// The lists of `photos` (numbered by their order), of classes below `classCount`; a class past it is left
    /// out.
    public init(_ photos: [PhotoClasses], classCount: Int = 1000) {
        var counts = [Int](repeating: 0, count: classCount + 1)
        for photo in photos {
            for index in photo.classes where index < classCount { counts[index + 1] += 1 }
        }
        for index in 0..<classCount { counts[index + 1] += counts[index] }
        var next = counts
        var members = [UInt32](repeating: 0, count: counts[classCount])
        var probabilities = [Float](repeating: 0, count: counts[classCount])
        for (number, photo) in photos.enumerated() {
            for (index, probability) in zip(photo.classes, photo.probabilities) where index < classCount {
                members[next[index]] = UInt32(number)
                probabilities[next[index]] = probability
                next[index] += 1
            }
        }
        (photoCount, starts, self.photos, self.probabilities) = (photos.count, counts, members, probabilities)
    }

    /// Each photo's score for `query`, as ``WordQuery/score(_:)`` gives it from the photo's classes.
    public func scores(for query: WordQuery) -> [Float] {
        var scores = [Float](repeating: 1, count: photoCount)
        for term in query.terms {
            var termScores = [Float](repeating: 0, count: photoCount)
            for (index, weight) in zip(term.classes, term.weights) where index >= 0 && index + 1 < starts.count {
                for entry in starts[index]..<starts[index + 1] {
                    termScores[Int(photos[entry])] += weight * probabilities[entry]
                }
            }
            for photo in 0..<photoCount { scores[photo] *= termScores[photo] }
        }
        return scores
    }

    /// The `count` best photos (every one when nil) for `query`, as ``WordQuery/ranking(of:best:)`` ranks them.
    public func ranking(for query: WordQuery, best count: Int? = nil) -> [(index: Int, score: Float)] {
        WordQuery.best(scores(for: query), count)
    }
}
