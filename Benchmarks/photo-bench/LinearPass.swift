/// The similar-photo app's fast grouping, the baseline exact grouping is timed against: each photo is
/// compared only with the one before it and joins its group when close enough, so that one photo out of
/// place splits a group, and groups depend on the order photos come in.
enum LinearPass {
    /// The groups of at least two among `count` prints (`length` values each) packed in `prints`.
    static func groups(of prints: [Float], count: Int, length: Int, threshold: Float) -> [[Int]] {
        var groups: [[Int]] = [], current = [0]
        for item in 1..<max(count, 1) {
            var dot: Float = 0
            for i in 0..<length { dot += prints[item * length + i] * prints[(item - 1) * length + i] }
            if 1 - dot <= threshold {
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
