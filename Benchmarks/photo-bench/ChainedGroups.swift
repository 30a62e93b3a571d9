import ImageKernels

/// How duplicate groups were made before issue 59, the baseline photo-bench compares with: every pair within
/// the thresholds linked, and groups the connected photos (union-find), however far apart a chain's ends lie.
enum ChainedGroups {
    /// The groups of at least two among `count` photos that `pairs` connect, each in ascending order.
    static func groups(count: Int, pairs: some Sequence<(Int, Int)>) -> [[Int]] {
        var components = ConnectedComponents(count: count)
        for (a, b) in pairs where a != b { components.link(a, b) }
        var members: [Int: [Int]] = [:]
        for item in 0..<count { members[components.label(of: item), default: []].append(item) }
        return members.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
    }
}
