import PhotoSimilarity

/// The similar-photo app's fast grouping, the baseline exact grouping is timed against: each photo is
/// compared only with the one before it and joins its group when close enough, so that one photo out of
/// place splits a group, and groups depend on the order photos come in.
enum LinearPass {
    /// The groups of at least two among `count` prints packed in `prints`.
    static func groups(of prints: [Float], count: Int, threshold: Float) -> [[Int]] {
        var groups: [[Int]] = [], current = [0]
        for item in 1..<max(count, 1) {
            if ClosePrints.distance(between: item, and: item - 1, in: prints) <= threshold {
                current.append(item)
            } else {
                if current.count > 1 { groups.append(current) }
                current = [item]
            }
        }
        if current.count > 1 { groups.append(current) }
        return groups
    }
}
