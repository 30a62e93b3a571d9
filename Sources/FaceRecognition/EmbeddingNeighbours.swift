import FaceRecognitionCL
import ImageKernels

/// For each of `queryCount` rows of a gallery of embeddings (one per row) from `queryStart` on, its `k`
/// nearest other rows among the first `count`, closer than `radius`, nearest first (ties to the lower row):
/// the exact neighbour graph that clustering is built on, a tile of query rows at a time, so that no
/// all-pairs matrix is ever held. Output: `k` wide, `queryCount` high, two planes: the distances (infinity
/// past those found), then the rows' indices as floats (-1 there).
public struct EmbeddingNeighbours: Filter {
    public let queryStart: Int
    public let queryCount: Int
    public let count: Int
    public let k: Int
    public let radius: Float
    public var name: String { "embedding neighbours" }

    /// The most neighbours a row can have: the OpenCL kernel keeps them in private memory.
    public static let maximumNeighbours = 64
    /// Row indices travel as floats, exact below 2²⁴.
    public static let maximumRows = 1 << 24

    public init(queryStart: Int, queryCount: Int, count: Int, k: Int, radius: Float) {
        self.queryStart = queryStart
        self.queryCount = queryCount
        self.count = count
        self.k = k
        self.radius = radius
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let gallery = try singleInput(inputs, of: .float32)
        guard gallery.planeCount == 1, (1...min(gallery.height, Self.maximumRows)).contains(count), queryStart >= 0, queryCount > 0,
              queryStart + queryCount <= count, (1...Self.maximumNeighbours).contains(k), radius > 0, radius.isFinite else {
            throw .invalidInput(filter: name, reason: "rows \(queryStart)..<\(queryStart + queryCount) of \(count) in \(gallery), "
                                + "\(k) neighbours (1...\(Self.maximumNeighbours)) closer than \(radius)")
        }
        return ImageDescriptor(width: k, height: queryCount, channels: 2, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        try encoder.launch(Self.kernel, Arguments(gallery: .init(encoder.input), neighbours: .init(encoder.output), count: Int32(count),
                                                  length: Int32(encoder.inputs[0].descriptor.width), queryStart: Int32(queryStart),
                                                  queryCount: Int32(queryCount), k: Int32(k), radius: radius),
                           over: [queryCount])
    }

    struct Arguments: KernelArguments {
        var gallery: KernelBuffer<Float>
        var neighbours: KernelMutableBuffer<Float>
        var count: Int32
        var length: Int32
        var queryStart: Int32
        var queryCount: Int32
        var k: Int32
        var radius: Float
    }

    /// The CPU twin computes squared distances as |q|² + |g|² − 2 q·g: query rows four at a time against
    /// panels of eight gallery rows packed lane by lane, each panel packed once per chunk of query rows.
    static let kernel = Kernel<Arguments>("embedding_neighbours",
                                          in: KernelSource(name: "EmbeddingNeighbours", bytes: FaceRecognitionCL.embeddingNeighbours),
                                          schedules: .uniform([64])) { arguments, _ in
        let length = Int(arguments.length), count = Int(arguments.count), start = Int(arguments.queryStart)
        let queryCount = Int(arguments.queryCount), k = Int(arguments.k), limit = arguments.radius * arguments.radius
        CPUParallel.forEachRange(queryCount) { chunk in
            let gallery = arguments.gallery.elements
            var lists = NeighbourLists(rows: chunk.count, k: k, limit: limit)
            let queryNorms = chunk.map { q in (0..<length).reduce(Float(0)) { $0 + gallery[(start + q) * length + $1] * gallery[(start + q) * length + $1] } }
            let panel = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: length)
            defer { panel.deallocate() }
            for first in stride(from: 0, to: count, by: 8) {
                let width = min(8, count - first)
                // Packed through plain stores: setting a SIMD8's lanes one by one goes through memory.
                UnsafeMutableRawPointer(panel).withMemoryRebound(to: Float.self, capacity: length * 8) { floats in
                    for lane in 0..<8 {
                        let row = gallery + (first + min(lane, width - 1)) * length
                        for i in 0..<length { floats[i * 8 + lane] = lane < width ? row[i] : 0 }
                    }
                }
                var panelNorms = SIMD8<Float>()
                for i in 0..<length { panelNorms += panel[i] * panel[i] }
                var row = 0
                while row < chunk.count {
                    let rows = min(4, chunk.count - row)
                    func query(_ r: Int) -> UnsafePointer<Float> { gallery + (start + chunk.lowerBound + row + min(r, rows - 1)) * length }
                    let q0 = query(0), q1 = query(1), q2 = query(2), q3 = query(3)
                    var dot0 = SIMD8<Float>(), dot1 = SIMD8<Float>(), dot2 = SIMD8<Float>(), dot3 = SIMD8<Float>()
                    for i in 0..<length {
                        let lanes = panel[i]
                        dot0 += q0[i] * lanes
                        dot1 += q1[i] * lanes
                        dot2 += q2[i] * lanes
                        dot3 += q3[i] * lanes
                    }
                    func collect(_ dot: SIMD8<Float>, _ r: Int) {
                        guard r < rows else { return }
                        let local = row + r, squared = queryNorms[local] + panelNorms - 2 * dot
                        guard any(squared .< lists.limit(local)) else { return }
                        for lane in 0..<width where first + lane != start + chunk.lowerBound + local {
                            lists.insert(max(squared[lane], 0), row: first + lane, into: local)
                        }
                    }
                    collect(dot0, 0)
                    collect(dot1, 1)
                    collect(dot2, 2)
                    collect(dot3, 3)
                    row += rows
                }
            }
            lists.write(to: arguments.neighbours.elements, firstRow: chunk.lowerBound, queryCount: queryCount)
        }
    }
}

/// Each query row's nearest rows so far, as squared distances, nearest first; a row enters only when closer
/// than the limit (the radius, or the k-th nearest once there are k), so ties keep the row seen first.
private struct NeighbourLists {
    let k: Int
    let radiusLimit: Float
    private var squared: [Float]
    private var indices: [Int]
    private var found: [Int]

    init(rows: Int, k: Int, limit: Float) {
        self.k = k
        radiusLimit = limit
        squared = [Float](repeating: .infinity, count: rows * k)
        indices = [Int](repeating: -1, count: rows * k)
        found = [Int](repeating: 0, count: rows)
    }

    func limit(_ row: Int) -> Float { found[row] == k ? squared[row * k + k - 1] : radiusLimit }

    mutating func insert(_ distance: Float, row index: Int, into row: Int) {
        guard distance < limit(row) else { return }
        let base = row * k
        var at = min(found[row], k - 1)
        while at > 0 && squared[base + at - 1] > distance {
            squared[base + at] = squared[base + at - 1]
            indices[base + at] = indices[base + at - 1]
            at -= 1
        }
        squared[base + at] = distance
        indices[base + at] = index
        found[row] = min(found[row] + 1, k)
    }

    /// Distances in the first plane, indices in the second, from query row `firstRow` on.
    func write(to output: UnsafeMutablePointer<Float>, firstRow: Int, queryCount: Int) {
        for row in 0..<found.count {
            for i in 0..<k {
                output[(firstRow + row) * k + i] = squared[row * k + i].squareRoot()
                output[(queryCount + firstRow + row) * k + i] = Float(indices[row * k + i])
            }
        }
    }
}
