/// Each print's nearest other prints, kept up to date as prints come and go, for database-side augmentation
/// (``PrintExpansion``): an update searches only what the change needs (the new prints against all, the
/// others against the new ones, and afresh only the prints that lost a neighbour), and gives the lists that
/// finding every print's neighbours from scratch gives.
public struct PrintNeighbourhoods: Sendable, Equatable {
    /// A print's neighbour: its id and cosine similarity.
    public struct Neighbour: Sendable, Equatable, Hashable {
        public let id: Int64
        public let similarity: Float

        public init(id: Int64, similarity: Float) {
            self.id = id
            self.similarity = similarity
        }

        /// Nearer first; of two as near, the lower id.
        public static func ranks(_ a: Neighbour, before b: Neighbour) -> Bool {
            a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id
        }
    }

    /// Neighbours a print keeps (fewer while there are fewer other prints).
    public let count: Int
    /// Each print's neighbours, nearest first.
    public private(set) var lists: [Int64: [Neighbour]] = [:]

    /// No prints yet; each print will keep `count` neighbours.
    public init(count: Int) {
        self.count = count
    }

    /// Brings the lists up to date with the prints `current` holds now: the lists of prints gone are dropped,
    /// new prints get theirs, and every other print's list takes in the new prints and loses those gone.
    public mutating func update<Prints: PrintNeighbourSearch>(to current: Prints) throws(Prints.Failure) {
        let ids = current.ids, known = Set(lists.keys)
        let gone = known.subtracting(ids), added = ids.subtracting(known)
        guard !gone.isEmpty || !added.isEmpty else { return }
        for id in gone { lists[id] = nil }
        // A print that lost a neighbour may now have others nearer than the new prints: it searches afresh.
        let again = lists.filter { $0.value.contains { gone.contains($0.id) } }.keys
        let kept = lists.keys.filter { lists[$0]?.contains { gone.contains($0.id) } == false }
        let afresh = Array(added.union(again)).sorted()
        for (id, found) in zip(afresh, try current.nearest(to: afresh, among: nil, top: count)) { lists[id] = found }
        guard !added.isEmpty else { return }
        let others = kept.sorted()
        for (id, found) in zip(others, try current.nearest(to: others, among: added, top: count)) {
            lists[id] = Array((lists[id, default: []] + found).sorted(by: Neighbour.ranks).prefix(count))
        }
    }
}

/// Prints as ``PrintNeighbourhoods`` searches them: their ids, and each query print's nearest others.
public protocol PrintNeighbourSearch {
    associatedtype Failure: Error
    /// Every print's id.
    var ids: Set<Int64> { get }
    /// The `top` prints nearest to each print of `queries`, itself left out, among `candidates` (every print
    /// when nil), ranked as ``PrintNeighbourhoods/Neighbour/ranks(_:before:)`` says. A pair's similarity must
    /// be the same whichever of the two asks and whatever else is searched with it.
    func nearest(to queries: [Int64], among candidates: Set<Int64>?, top: Int) throws(Failure)
        -> [[PrintNeighbourhoods.Neighbour]]
}

/// Prints held in memory, searched exhaustively on the host: for benchmarks, tests and small catalogs.
public struct PrintTable: PrintNeighbourSearch, Sendable {
    public typealias Failure = Never
    public var prints: [Int64: [Float]]

    public init(_ prints: [Int64: [Float]]) {
        self.prints = prints
    }

    public var ids: Set<Int64> { Set(prints.keys) }

    public func nearest(to queries: [Int64], among candidates: Set<Int64>?, top: Int) -> [[PrintNeighbourhoods
        .Neighbour]]
    {
        let pool = (candidates.map(Array.init) ?? Array(prints.keys)).compactMap { id in prints[id].map { (id, $0) } }
        return queries.map { query in
            guard let print = prints[query] else { return [] }
            let found = pool.filter { $0.0 != query }.map {
                PrintNeighbourhoods.Neighbour(id: $0.0, similarity: PrintExpansion.similarity(print, $0.1))
            }
            return Array(found.sorted(by: PrintNeighbourhoods.Neighbour.ranks).prefix(top))
        }
    }
}
