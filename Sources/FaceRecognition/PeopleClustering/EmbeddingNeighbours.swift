import FaceRecognitionCL
import ImageKernels

/// For each of `queryCount` rows of a gallery of embeddings (one per row) from `queryStart` on, its `k`
/// nearest other rows among the first `count`, closer than `radius`, nearest first (ties to the lower row):
/// the exact neighbour graph that clustering is built on, a tile of query rows at a time, so that no
/// all-pairs matrix is ever held. Output: `k` wide, `queryCount` high, two planes: the distances (infinity
/// past those found), then the rows' indices as floats (-1 there).
///
/// A second input may hold a stand-in for each row: a shorter row whose squared distances to the others'
/// stand-ins never exceed the rows' own by more than `slack` (an orthonormal projection with the residual's
/// length appended). A pair is then measured in full only where its stand-ins are within reach, so long
/// rows that lie far apart cost the stand-ins' length, and the result is the same as without them.
public struct EmbeddingNeighbours: Filter {
    public let queryStart: Int
    public let queryCount: Int
    public let count: Int
    public let k: Int
    public let radius: Float
    /// How far stand-ins' squared distances may exceed their rows' own through rounding.
    public let slack: Float
    public var name: String { "embedding neighbours" }

    /// The most neighbours a row can have: the OpenCL kernel keeps them in private memory.
    public static let maximumNeighbours = 64
    /// Row indices travel as floats, exact below 2²⁴.
    public static let maximumRows = 1 << 24

    public init(queryStart: Int, queryCount: Int, count: Int, k: Int, radius: Float, slack: Float = 0) {
        self.queryStart = queryStart
        self.queryCount = queryCount
        self.count = count
        self.k = k
        self.radius = radius
        self.slack = slack
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let gallery = try singleInput(Array(inputs.prefix(1)), of: .float32)
        let standIns = inputs.dropFirst().first
        guard inputs.count <= 2,
            standIns.map({ $0.elementType == .float32 && $0.planeCount == 1 && $0.height >= count }) ?? true,
            slack >= 0, slack.isFinite, gallery.planeCount == 1,
            (1...min(gallery.height, Self.maximumRows)).contains(count), queryStart >= 0,
            queryCount > 0,
            queryStart + queryCount <= count, (1...Self.maximumNeighbours).contains(k), radius > 0, radius.isFinite
        else {
            throw .invalidInput(
                filter: name,
                reason: "rows \(queryStart)..<\(queryStart + queryCount) of \(count) in \(gallery), "
                    + "\(k) neighbours (1...\(Self.maximumNeighbours)) closer than \(radius), "
                    + "stand-ins \(standIns.map { "\($0)" } ?? "none") with slack \(slack)")
        }
        return ImageDescriptor(width: k, height: queryCount, channels: 2, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        // Without stand-ins the kernel is given the gallery in their place, with no length to read.
        let standIns = encoder.inputs.count > 1 ? encoder.inputs[1] : encoder.input
        try encoder.launch(
            Self.kernel,
            Arguments(
                gallery: .init(encoder.input), standIns: .init(standIns), neighbours: .init(encoder.output),
                count: Int32(count), length: Int32(encoder.input.descriptor.width),
                standInLength: Int32(encoder.inputs.count > 1 ? standIns.descriptor.width : 0), slack: slack,
                queryStart: Int32(queryStart), queryCount: Int32(queryCount), k: Int32(k), radius: radius),
            over: [queryCount])
    }

    struct Arguments: KernelArguments {
        var gallery: KernelBuffer<Float>
        var standIns: KernelBuffer<Float>
        var neighbours: KernelMutableBuffer<Float>
        var count: Int32
        var length: Int32
        var standInLength: Int32
        var slack: Float
        var queryStart: Int32
        var queryCount: Int32
        var k: Int32
        var radius: Float
    }

    /// The CPU twin compares each pair of query rows once, filling both rows' lists (block pairs in rounds
    /// in which no block appears twice, so each list has one writer at a time), and the query rows with the
    /// other rows one way; squared distances are |a|² + |b|² − 2 a·b, four rows against panels of sixteen
    /// (of the stand-ins where there are some, then the pairs within reach in full).
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
    /// closer than `radius` (fewer where fewer are), nearest first, searched `tileRows` query rows a launch,
    /// screened by `standIns` (with their `slack`) where given.
    public static func pairs(
        in gallery: Image, standIns: (image: Image, slack: Float)? = nil, count: Int, queries: Int, k: Int,
        radius: Float, tileRows: Int, context: RenderContext
    ) throws(RenderError) -> [(query: Int, neighbour: Int, distance: Float)] {
        var pairs: [(query: Int, neighbour: Int, distance: Float)] = []
        guard count > 1, queries > 0, k > 0 else { return pairs }
        for first in stride(from: 0, to: queries, by: max(1, tileRows)) {
            let rows = min(max(1, tileRows), queries - first)
            let found = try context.render(
                gallery.applying(
                    EmbeddingNeighbours(
                        queryStart: first, queryCount: rows, count: count, k: k, radius: radius,
                        slack: standIns?.slack ?? 0),
                    with: standIns.map { [$0.image] } ?? [])
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
