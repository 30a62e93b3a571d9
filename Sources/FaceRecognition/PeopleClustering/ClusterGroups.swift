/// The groups of ``FaceClustering``: union-find over faces (union by size, ties to the lower root), and per
/// group its face count, the sum of its embeddings and of their squared norms (in doubles: sums over many
/// faces), from which the mean squared distance between two groups' faces is exact; and how many of its
/// faces' nearest faces lie in each other group.
struct ClusterGroups {
    let length: Int
    /// Nearest faces listed per face searched.
    private let faceNeighbours: Int
    /// Per group (root), the groups its faces' nearest faces lie in, with how many; and the groups whose
    /// faces' nearest faces lie in it.
    private var links: [[Int: Int]]
    private var linkedFrom: [Set<Int>]
    private var parent: [Int]
    private var sizes: [Int]
    private var sums: [Double]
    private var squares: [Double]
    private var anchored: [Bool]
    /// Bumped when a group grows, so queued pairs priced before are known stale.
    private var versions: [Int]

    init(
        embeddings: [Float], length: Int, start: FaceClustering.Start, nearestFaces: [(Int, Int)] = [],
        faceNeighbours: Int
    ) {
        let count = embeddings.count / length
        self.length = length
        self.faceNeighbours = faceNeighbours
        links = [[Int: Int]](repeating: [:], count: count)
        linkedFrom = [Set<Int>](repeating: [], count: count)
        parent = Array(0..<count)
        sizes = [Int](repeating: 1, count: count)
        sums = embeddings.map(Double.init)
        squares = (0..<count).map { face in
            embeddings[face * length..<(face + 1) * length].reduce(0.0) { $0 + Double($1) * Double($1) }
        }
        anchored = [Bool](repeating: false, count: count)
        versions = [Int](repeating: 0, count: count)
        var firstOfGroup: [Int: Int] = [:]
        for (face, group) in start.groups.enumerated() {
            guard let group else { continue }
            if let first = firstOfGroup[group] {
                _ = union(root(of: first), root(of: face))
            } else {
                firstOfGroup[group] = face
            }
        }
        for (group, first) in firstOfGroup where start.anchored.contains(group) { anchored[root(of: first)] = true }
        link(nearestFaces)
    }

    /// Counts each pair of a face and one of its nearest faces as a link between their groups.
    mutating func link(_ nearestFaces: [(Int, Int)]) {
        for (face, neighbour) in nearestFaces {
            let from = root(of: face), to = root(of: neighbour)
            guard from != to else { continue }
            links[from][to, default: 0] += 1
            linkedFrom[to].insert(from)
        }
    }

    /// The pairs of groups that the nearest faces of `groups`' faces link, either way.
    func linkedPairs(of groups: Set<Int>) -> [(Int, Int)] {
        groups.sorted().flatMap { group in
            (links[group].keys.sorted() + linkedFrom[group].sorted()).map { (group, $0) }
        }
    }

    /// The larger of the two shares: of `a`'s faces' nearest faces that lie in `b`, and of `b`'s in `a`.
    func linkShare(_ a: Int, _ b: Int) -> Double {
        guard faceNeighbours > 0 else { return 0 }
        let k = Double(faceNeighbours)
        return max(
            Double(links[a][b] ?? 0) / (Double(sizes[a]) * k), Double(links[b][a] ?? 0) / (Double(sizes[b]) * k))
    }

    func root(of face: Int) -> Int {
        var face = face
        while parent[face] != face { face = parent[face] }
        return face
    }

    /// Every group's root, in face order.
    var roots: [Int] { parent.indices.filter { parent[$0] == $0 } }

    /// A group's mean embedding, written at `offset`.
    func centroid(of root: Int, into values: inout [Float], at offset: Int) {
        for i in 0..<length { values[offset + i] = Float(sums[root * length + i] / Double(sizes[root])) }
    }

    /// The mean squared distance between the faces of two groups: E|a|² + E|b|² − 2 ā·b̄.
    func linkage(_ a: Int, _ b: Int) -> Double {
        var dot = 0.0
        for i in 0..<length { dot += sums[a * length + i] * sums[b * length + i] }
        let na = Double(sizes[a]), nb = Double(sizes[b])
        return squares[a] / na + squares[b] / nb - 2 * dot / (na * nb)
    }

    /// Joins two groups (roots); returns the root of the whole.
    private mutating func union(_ a: Int, _ b: Int) -> Int {
        let (keep, join) = (sizes[a], b) > (sizes[b], a) ? (a, b) : (b, a)
        parent[join] = keep
        sizes[keep] += sizes[join]
        for i in 0..<length { sums[keep * length + i] += sums[join * length + i] }
        squares[keep] += squares[join]
        anchored[keep] = anchored[keep] || anchored[join]
        versions[keep] += 1
        joinLinks(join, into: keep)
        return keep
    }

    /// Moves the links from and to `join` over to `keep`; those between the two become links within one.
    private mutating func joinLinks(_ join: Int, into keep: Int) {
        for (other, count) in links[join] where other != keep {
            links[keep][other, default: 0] += count
            linkedFrom[other].remove(join)
            linkedFrom[other].insert(keep)
        }
        for other in linkedFrom[join] where other != keep {
            links[other][keep, default: 0] += links[other][join] ?? 0
            links[other][join] = nil
            linkedFrom[keep].insert(other)
        }
        links[keep][join] = nil
        linkedFrom[keep].remove(join)
        links[join] = [:]
        linkedFrom[join] = []
    }

    /// Merges the closest pair of groups among `pairs` (and, after each merge, the merged group with its
    /// groups' partners) while their root-mean-square distance is below `threshold` × (1 + their link
    /// share), and below `reach`, closest first by that distance over (1 + the share); two anchored groups
    /// never merge. Returns the groups that grew.
    mutating func merge(_ pairs: [(Int, Int)], threshold: Double, reach: Double) -> Set<Int> {
        var partners: [Int: Set<Int>] = [:]
        for (a, b) in pairs where a != b {
            partners[a, default: []].insert(b)
            partners[b, default: []].insert(a)
        }
        var queue = PairQueue()
        func consider(_ a: Int, _ b: Int) {
            guard !(anchored[a] && anchored[b]) else { return }
            let squared = linkage(a, b), share = linkShare(a, b), widening = (1 + share) * (1 + share)
            if squared < threshold * threshold * widening && squared < reach * reach {
                queue.push(
                    .init(
                        distance: squared / widening, a: min(a, b), b: max(a, b),
                        versions: (versions[min(a, b)], versions[max(a, b)])))
            }
        }
        for (a, others) in partners {
            for b in others where a < b { consider(a, b) }
        }
        var grown = Set<Int>()
        while let pair = queue.pop() {
            guard parent[pair.a] == pair.a, parent[pair.b] == pair.b,
                (versions[pair.a], versions[pair.b]) == pair.versions
            else { continue }
            let kept = union(pair.a, pair.b), joined = kept == pair.a ? pair.b : pair.a
            grown.remove(joined)
            grown.insert(kept)
            let others = Set((partners[pair.a, default: []].union(partners[pair.b, default: []])).map { root(of: $0) })
                .subtracting([kept])
            partners[joined] = nil
            partners[kept] = others
            for other in others.sorted() { consider(kept, other) }
        }
        return grown
    }

    /// Each face's cluster, numbered in the order of their first faces, or nil in a group below
    /// `minimumSize` that is not anchored.
    func assignments(minimumSize: Int) -> [Int?] {
        var numbers: [Int: Int] = [:]
        return parent.indices.map { face in
            let group = root(of: face)
            guard sizes[group] >= minimumSize || anchored[group] else { return nil }
            if let number = numbers[group] { return number }
            numbers[group] = numbers.count
            return numbers[group]
        }
    }
}

/// A binary min-heap of candidate pairs, closest first (ties to the lower faces).
private struct PairQueue {
    struct Pair {
        let distance: Double
        let a: Int
        let b: Int
        let versions: (Int, Int)

        func precedes(_ other: Pair) -> Bool { (distance, a, b) < (other.distance, other.a, other.b) }
    }

    private var heap: [Pair] = []

    mutating func push(_ pair: Pair) {
        heap.append(pair)
        var child = heap.count - 1
        while child > 0, heap[child].precedes(heap[(child - 1) / 2]) {
            heap.swapAt(child, (child - 1) / 2)
            child = (child - 1) / 2
        }
    }

    mutating func pop() -> Pair? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
