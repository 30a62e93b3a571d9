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
        guard gallery.planeCount == 1, (1...min(gallery.height, Self.maximumRows)).contains(count), queryStart >= 0,
            queryCount > 0,
            queryStart + queryCount <= count, (1...Self.maximumNeighbours).contains(k), radius > 0, radius.isFinite
        else {
            throw .invalidInput(
                filter: name,
                reason: "rows \(queryStart)..<\(queryStart + queryCount) of \(count) in \(gallery), "
                    + "\(k) neighbours (1...\(Self.maximumNeighbours)) closer than \(radius)")
        }
        return ImageDescriptor(width: k, height: queryCount, channels: 2, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        try encoder.launch(
            Self.kernel,
            Arguments(
                gallery: .init(encoder.input), neighbours: .init(encoder.output), count: Int32(count),
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

    /// The CPU twin compares each pair of query rows once, filling both rows' lists (block pairs in rounds
    /// in which no block appears twice, so each list has one writer at a time), and the query rows with the
    /// other rows one way; squared distances are |a|² + |b|² − 2 a·b, four rows against panels of eight.
    static let kernel = Kernel<Arguments>(
        "embedding_neighbours",
        in: KernelSource(name: "EmbeddingNeighbours", bytes: FaceRecognitionCL.embeddingNeighbours),
        schedules: .uniform([64])
    ) { arguments, _ in
        let search = NeighbourSearch(arguments)
        CPUParallel.forEachRange(search.blocks.count) { blocks in
            for block in blocks { search.compareOneWay(block) }
        }
        for round in search.blockPairRounds() {
            CPUParallel.forEachRange(round.count) { pairs in
                for pair in pairs { search.compareBothWays(round[pair]) }
            }
        }
        search.lists.finish()
    }
}

extension EmbeddingNeighbours {
    /// Each of the first `queries` rows of `gallery` (`count` rows) paired with its `k` nearest other rows
    /// closer than `radius` (fewer where fewer are), nearest first, searched `tileRows` query rows a launch.
    public static func pairs(
        in gallery: Image, count: Int, queries: Int, k: Int, radius: Float, tileRows: Int, context: RenderContext
    ) throws(RenderError) -> [(query: Int, neighbour: Int, distance: Float)] {
        var pairs: [(query: Int, neighbour: Int, distance: Float)] = []
        guard count > 1, queries > 0, k > 0 else { return pairs }
        for first in stride(from: 0, to: queries, by: max(1, tileRows)) {
            let rows = min(max(1, tileRows), queries - first)
            let found = try context.render(
                gallery.applying(
                    EmbeddingNeighbours(queryStart: first, queryCount: rows, count: count, k: k, radius: radius))
            ).floatValues
            for q in 0..<rows {
                for i in 0..<k {
                    let neighbour = Int(found[(rows + q) * k + i])
                    guard neighbour >= 0 else { break }
                    pairs.append((first + q, neighbour, found[q * k + i]))
                }
            }
        }
        return pairs
    }
}
