/// Items joined into components by links (union-find with path halving): detections that overlap, photos
/// that are copies. Each component is labelled by its smallest item, so the components and their labels do
/// not depend on the order the links come in.
public struct ConnectedComponents: Sendable {
    private var parent: [Int]

    /// `count` items, each alone.
    public init(count: Int) {
        parent = Array(0..<count)
    }

    /// Joins the components of items `a` and `b`.
    public mutating func link(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (label(of: a), label(of: b))
        if rootA != rootB { parent[max(rootA, rootB)] = min(rootA, rootB) }
    }

    /// The smallest item of `item`'s component.
    public mutating func label(of item: Int) -> Int {
        var item = item
        while parent[item] != item {
            parent[item] = parent[parent[item]]
            item = parent[item]
        }
        return item
    }
}
