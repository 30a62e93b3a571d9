import Foundation
import ImageKernels

/// The CPU twin of ``EmbeddingNeighbours``. The query rows are cut into blocks; each block is compared with
/// itself and with the rows outside the queries one way, and each pair of blocks once, both ways: a pair of
/// query rows costs one distance, not two. Block pairs run in rounds in which no block appears twice (the
/// circle method of round-robin tournaments), so each row's list has one writer at a time, and lists keep
/// ties in row order whatever order pairs come in, so the result does not depend on the schedule. With
/// stand-ins, the tiles compare those, and only pairs within reach are measured in full.
struct NeighbourSearch: Sendable {
    let arguments: EmbeddingNeighbours.Arguments
    let length: Int
    /// The rows the tiles compare: the stand-ins where there are some, else the gallery's own.
    private var screened: UnsafePointer<Float> {
        hasStandIns ? arguments.standIns.elements : arguments.gallery.elements
    }
    private let screenedLength: Int
    private let hasStandIns: Bool
    /// Blocks of query rows (rows of the gallery).
    let blocks: [Range<Int>]
    /// Every gallery row's squared norm, and every screened row's.
    private let norms: [Float]
    private let screenedNorms: [Float]

    /// Prepares the search and empties the output's lists.
    init(_ arguments: EmbeddingNeighbours.Arguments) {
        self.arguments = arguments
        length = Int(arguments.length)
        let count = Int(arguments.count)
        hasStandIns = arguments.standInLength > 0
        screenedLength = hasStandIns ? Int(arguments.standInLength) : length
        norms = Self.squaredNorms(of: arguments.gallery.elements, count: count, length: length)
        screenedNorms =
            hasStandIns
            ? Self.squaredNorms(of: arguments.standIns.elements, count: count, length: screenedLength) : norms
        // Blocks of at most 256 rows (whole panels of eight), enough of them to keep every core busy.
        let start = Int(arguments.queryStart), queries = Int(arguments.queryCount)
        let wanted = CPUParallel.chunkCount
        let size = min(256, ((queries + wanted - 1) / wanted + 7) / 8 * 8)
        blocks = stride(from: start, to: start + queries, by: size).map { $0..<min($0 + size, start + queries) }
        lists.empty()
    }

    private static func squaredNorms(of rows: UnsafePointer<Float>, count: Int, length: Int) -> [Float] {
        (0..<count).map { row in RowArithmetic.dot(rows + row * length, rows + row * length, count: length) }
    }

    /// The squared distance of gallery rows `a` and `b` in full.
    private func squaredDistance(_ a: Int, _ b: Int) -> Float {
        let gallery = arguments.gallery.elements
        return norms[a] + norms[b] - 2 * RowArithmetic.dot(gallery + a * length, gallery + b * length, count: length)
    }

    var lists: NeighbourLists {
        NeighbourLists(
            arguments.neighbours.elements, k: Int(arguments.k), rows: Int(arguments.queryCount),
            firstRow: Int(arguments.queryStart), radius: arguments.radius)
    }

    /// Block pairs in rounds, each block at most once per round.
    func blockPairRounds() -> [[(Int, Int)]] {
        let count = blocks.count, slots = count + count % 2, turning = slots - 1
        guard count > 1 else { return [] }
        return (0..<turning).map { round in
            (0..<slots / 2).compactMap { i in
                let a = i == 0 ? turning : (round + i) % turning, b = (round - i + turning) % turning
                return max(a, b) < count ? (a, b) : nil
            }
        }
    }

    /// A block's rows against each other and against the rows that are not queries, into the block's lists.
    func compareOneWay(_ block: Int) {
        let queries = blocks[block], start = Int(arguments.queryStart), end = start + Int(arguments.queryCount)
        for others in [0..<start, queries, end..<Int(arguments.count)] where !others.isEmpty {
            compare(queries, with: others, bothWays: false)
        }
    }

    /// Two blocks' rows against each other, into both blocks' lists.
    func compareBothWays(_ pair: (Int, Int)) {
        compare(blocks[pair.0], with: blocks[pair.1], bothWays: true)
    }

    /// Rows four at a time against panels of sixteen other rows packed lane by lane (a ``RegisterTile``),
    /// each panel packed once.
    private func compare(_ queries: Range<Int>, with others: Range<Int>, bothWays: Bool) {
        let gallery = screened, length = screenedLength, lists = lists, slack = arguments.slack
        // Rows 0–7 of the panel, then rows 8–15, each lane by lane.
        let panel = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 2 * length)
        defer { panel.deallocate() }
        for first in stride(from: others.lowerBound, to: others.upperBound, by: 16) {
            let width = min(16, others.upperBound - first)
            // Packed through plain stores: setting a SIMD8's lanes one by one goes through memory.
            UnsafeMutableRawPointer(panel).withMemoryRebound(to: Float.self, capacity: length * 16) { floats in
                for lane in 0..<16 {
                    let row = gallery + (first + min(lane, width - 1)) * length
                    let half = floats + lane / 8 * length * 8, column = lane % 8
                    for i in 0..<length { half[i * 8 + column] = lane < width ? row[i] : 0 }
                }
            }
            var panelNorms = SIMD16<Float>(), panelLimits = SIMD16<Float>(repeating: -.infinity)
            for lane in 0..<width {
                panelNorms[lane] = screenedNorms[first + lane]
                if bothWays { panelLimits[lane] = lists.limit(of: first + lane) }
            }
            var row = queries.lowerBound
            while row < queries.upperBound {
                let rows = min(4, queries.upperBound - row)
                func query(_ r: Int) -> UnsafePointer<Float> { gallery + (row + min(r, rows - 1)) * length }
                let q0 = query(0), q1 = query(1), q2 = query(2), q3 = query(3)
                let tile = RegisterTile(q0, q1, q2, q3, low: panel, high: panel + length, depth: length)
                func collect(_ dot: SIMD8<Float>, _ r: Int, half: Int) {
                    let offset = 8 * half, lanes = min(8, width - offset)
                    guard r < rows, lanes > 0 else { return }
                    let query = row + r
                    let panelLimit = half == 0 ? panelLimits.lowHalf : panelLimits.highHalf
                    var squared =
                        screenedNorms[query] + (half == 0 ? panelNorms.lowHalf : panelNorms.highHalf) - 2 * dot
                    let queryReach = lists.limit(of: query) + slack, panelReach = panelLimit + slack
                    guard any(squared .<= queryReach) || any(squared .<= panelReach) else { return }
                    if hasStandIns {
                        for lane in 0..<8 {
                            squared[lane] =
                                lane < lanes && (squared[lane] <= queryReach || squared[lane] <= panelReach[lane])
                                ? squaredDistance(query, first + offset + lane) : .infinity
                        }
                    }
                    if any(squared .<= lists.limit(of: query)) {
                        for lane in 0..<lanes where first + offset + lane != query {
                            lists.insert(max(squared[lane], 0), row: first + offset + lane, into: query)
                        }
                    }
                    let closer = squared .<= panelLimit
                    if bothWays && any(closer) {
                        for lane in 0..<lanes where closer[lane] {
                            lists.insert(max(squared[lane], 0), row: query, into: first + offset + lane)
                            panelLimits[offset + lane] = lists.limit(of: first + offset + lane)
                        }
                    }
                }
                for r in 0..<4 {
                    collect(tile.sums(row: r, half: 0), r, half: 0)
                    collect(tile.sums(row: r, half: 1), r, half: 1)
                }
                row += rows
            }
        }
    }
}

/// The query rows' nearest rows so far, kept in the output itself: squared distances, nearest first, in the
/// first plane, their rows as floats in the second. Ordered by distance and then row, so a list ends the
/// same whatever order its rows come in; a row enters only when closer than the radius, or than the last of
/// a full list.
struct NeighbourLists {
    private let distances: UnsafeMutablePointer<Float>
    private let indices: UnsafeMutablePointer<Float>
    private let k: Int
    private let rows: Int
    private let firstRow: Int
    private let radiusLimit: Float

    init(_ output: UnsafeMutablePointer<Float>, k: Int, rows: Int, firstRow: Int, radius: Float) {
        distances = output
        indices = output + rows * k
        self.k = k
        self.rows = rows
        self.firstRow = firstRow
        radiusLimit = radius * radius
    }

    /// Every list empty: infinite distances, row -1.
    func empty() {
        distances.update(repeating: .infinity, count: rows * k)
        indices.update(repeating: -1, count: rows * k)
    }

    /// The squared distance a gallery row's list admits, ties included.
    func limit(of row: Int) -> Float {
        min(distances[(row - firstRow) * k + k - 1], radiusLimit)
    }

    /// Offers `candidate` at squared distance `distance` to gallery row `row`'s list.
    func insert(_ distance: Float, row candidate: Int, into row: Int) {
        let base = (row - firstRow) * k, entry = (distance, Float(candidate))
        let last = (distances[base + k - 1], indices[base + k - 1])
        guard last.0.isFinite ? entry < last : distance < radiusLimit else { return }
        var at = k - 1
        while at > 0 && (distances[base + at - 1], indices[base + at - 1]) > entry {
            distances[base + at] = distances[base + at - 1]
            indices[base + at] = indices[base + at - 1]
            at -= 1
        }
        distances[base + at] = distance
        indices[base + at] = entry.1
    }

    /// Squared distances to distances.
    func finish() {
        for i in 0..<rows * k { distances[i] = distances[i].squareRoot() }
    }
}
