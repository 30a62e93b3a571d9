/// How well a clustering matches the truth (each face's real person): pairwise precision, recall and F1 over
/// the pairs of faces put in one cluster, and BCubed F1 (per face, the share of its cluster that is its
/// person and the share of its person that is in its cluster). Unassigned faces count as clusters of one.
public struct ClusterQuality: Equatable, Sendable {
    public let pairwisePrecision: Double
    public let pairwiseRecall: Double
    public let pairwiseF1: Double
    public let bcubedF1: Double
    /// Clusters, unassigned faces not counted.
    public let clusters: Int
    public let unassigned: Int

    public init(clusters labels: [Int?], truth: [Int]) {
        // An unassigned face is one of a kind.
        let keys = labels.enumerated().map { face, label in label.map { 2 * $0 } ?? 2 * face + 1 }
        var clusterSizes: [Int: Int] = [:], personSizes: [Int: Int] = [:], both: [[Int]: Int] = [:]
        for (key, person) in zip(keys, truth) {
            clusterSizes[key, default: 0] += 1
            personSizes[person, default: 0] += 1
            both[[key, person], default: 0] += 1
        }
        func pairs(_ sizes: some Sequence<Int>) -> Double { sizes.reduce(0.0) { $0 + Double($1 * ($1 - 1) / 2) } }
        let together = pairs(both.values)
        pairwisePrecision = together / max(pairs(clusterSizes.values), 1)
        pairwiseRecall = together / max(pairs(personSizes.values), 1)
        pairwiseF1 = Self.harmonicMean(pairwisePrecision, pairwiseRecall)
        let faces = Double(max(truth.count, 1))
        let precision =
            zip(keys, truth).reduce(0.0) { $0 + Double(both[[$1.0, $1.1]] ?? 0) / Double(clusterSizes[$1.0] ?? 1) }
            / faces
        let recall =
            zip(keys, truth).reduce(0.0) { $0 + Double(both[[$1.0, $1.1]] ?? 0) / Double(personSizes[$1.1] ?? 1) }
            / faces
        bcubedF1 = Self.harmonicMean(precision, recall)
        clusters = Set(labels.compactMap { $0 }).count
        unassigned = labels.filter { $0 == nil }.count
    }

    private static func harmonicMean(_ a: Double, _ b: Double) -> Double { a + b > 0 ? 2 * a * b / (a + b) : 0 }
}
