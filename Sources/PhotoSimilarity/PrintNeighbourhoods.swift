import Dispatch
import ImageKernels

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

    /// Lists kept before (read back from where they were saved), each print keeping `count` neighbours.
    public init(count: Int, lists: [Int64: [Neighbour]]) {
        self.count = count
        self.lists = lists
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

/// Prints held in memory, searched exhaustively on the host's cores: blocks of queries against every
/// candidate in turn, so that each candidate is read once a block, and a pair's similarity computed the same
/// way in any block.
public struct PrintTable: PrintNeighbourSearch, Sendable {
    public typealias Failure = Never
    public var prints: [Int64: [Float]]

    /// Queries searched together against each candidate.
    private static let block = 16

    public init(_ prints: [Int64: [Float]]) {
        self.prints = prints
    }

    public var ids: Set<Int64> { Set(prints.keys) }

    public func nearest(to queries: [Int64], among candidates: Set<Int64>?, top: Int)
        -> [[PrintNeighbourhoods.Neighbour]]
    {
        let pool = (candidates.map(Array.init) ?? Array(prints.keys)).filter { prints[$0] != nil }.sorted()
        let length = prints.values.first?.count ?? 0
        guard top > 0, length > 0, !pool.isEmpty else { return queries.map { _ in [] } }
        let rows = pool.flatMap { prints[$0] ?? [] }, asked = queries.flatMap { prints[$0] ?? [] }
        // Each query's row among `asked` (queries with no print have none).
        let known = queries.map { prints[$0] != nil }
        var offsetsSoFar: [Int] = [], held = 0
        for isKnown in known {
            offsetsSoFar.append(held)
            held += isKnown ? 1 : 0
        }
        let offsets = offsetsSoFar
        var found = [[PrintNeighbourhoods.Neighbour]](repeating: [], count: queries.count)
        found.withUnsafeMutableBufferPointer { found in
            nonisolated(unsafe) let found = found
            rows.withUnsafeBufferPointer { rows in
                asked.withUnsafeBufferPointer { asked in
                    guard let first = rows.baseAddress, let firstAsked = asked.baseAddress else { return }
                    nonisolated(unsafe) let (rows, asked) = (first, firstAsked)
                    DispatchQueue.concurrentPerform(iterations: (queries.count + Self.block - 1) / Self.block) {
                        block in
                        let members = (block * Self.block..<min(queries.count, (block + 1) * Self.block)).filter {
                            known[$0]
                        }
                        var lists = members.map { _ in [PrintNeighbourhoods.Neighbour]() }
                        let starts = members.map { asked + offsets[$0] * length }
                        var similarities = [Float](repeating: 0, count: 4 * members.count)
                        for first in stride(from: 0, to: pool.count, by: 4) {
                            let candidates = first..<min(first + 4, pool.count)
                            Self.dots(
                                starts, candidates.map { rows + $0 * length }, count: length, into: &similarities)
                            for (column, index) in candidates.enumerated() {
                                for (slot, query) in members.enumerated() where queries[query] != pool[index] {
                                    let neighbour = PrintNeighbourhoods.Neighbour(
                                        id: pool[index], similarity: similarities[column * members.count + slot])
                                    Self.insert(neighbour, into: &lists[slot], keeping: top)
                                }
                            }
                        }
                        for (slot, query) in members.enumerated() { found[query] = lists[slot] }
                    }
                }
            }
        }
        return found
    }

    /// `RowArithmetic.dot` of each of `queries` with each of `rows` (at most four), into `similarities` (row
    /// by row: row r's with query q at r × the number of queries + q). Four queries against four rows at a
    /// time where their length is whole vectors: the same sums in the same order, so the same floats, sixteen
    /// in flight on eight loads rather than one waiting on itself.
    private static func dots(
        _ queries: [UnsafePointer<Float>], _ rows: [UnsafePointer<Float>], count: Int, into similarities: inout [Float]
    ) {
        let width = queries.count
        var first = 0
        while first + 4 <= width, rows.count == 4 {
            let tile = RowArithmetic.dots(
                (rows[0], rows[1], rows[2], rows[3]),
                (queries[first], queries[first + 1], queries[first + 2], queries[first + 3]), count: count)
            for pair in 0..<16 { similarities[pair / 4 * width + first + pair % 4] = tile[pair] }
            first += 4
        }
        for (row, pointer) in rows.enumerated() {
            for query in (rows.count == 4 ? first : 0)..<width {
                similarities[row * width + query] = RowArithmetic.dot(queries[query], pointer, count: count)
            }
        }
    }

    /// Puts `neighbour` in its place in `list` (ranked, at most `count` long) where it ranks among the first.
    private static func insert(
        _ neighbour: PrintNeighbourhoods.Neighbour, into list: inout [PrintNeighbourhoods.Neighbour], keeping count: Int
    ) {
        if list.count == count, let last = list.last, !PrintNeighbourhoods.Neighbour.ranks(neighbour, before: last) {
            return
        }
        let place = list.firstIndex { PrintNeighbourhoods.Neighbour.ranks(neighbour, before: $0) } ?? list.endIndex
        list.insert(neighbour, at: place)
        if list.count > count { list.removeLast() }
    }
}
