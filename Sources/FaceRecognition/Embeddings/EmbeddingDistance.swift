import FaceRecognitionCL
import ImageKernels

/// Euclidean distances from probe embeddings to the first `count` rows of a gallery image (one embedding
/// per row; rows past them are spare capacity): exact nearest-neighbour search on the device. Its inputs
/// are the gallery and the probes (one per row, as long as the gallery's); the output holds a row of
/// `count` distances per probe. Several probes at once read the gallery once: searches that arrive
/// together (a server's) cost little more than one.
public struct EmbeddingDistance: Filter {
    public let count: Int
    public var name: String { "embedding distance" }

    public init(count: Int) {
        self.count = count
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 2, let gallery = inputs.first, let probes = inputs.last,
            gallery.elementType == .float32, probes.elementType == .float32
        else {
            throw .invalidInput(filter: name, reason: "a float32 gallery and float32 probes, not \(inputs)")
        }
        guard gallery.width == probes.width, gallery.planeCount == 1, probes.planeCount == 1,
            (1...gallery.height).contains(count)
        else {
            throw .invalidInput(
                filter: name,
                reason: "\(count) rows of \(gallery.width) values searched in \(gallery), probes \(probes)")
        }
        return ImageDescriptor(width: count, height: probes.height, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let probes = encoder.inputs[1]
        try encoder.launch(
            Self.kernel,
            Arguments(
                gallery: .init(encoder.input), probes: .init(probes), distances: .init(encoder.output),
                count: Int32(count), length: Int32(probes.descriptor.width)),
            over: [count, probes.descriptor.height])
    }

    struct Arguments: KernelArguments {
        var gallery: KernelBuffer<Float>
        var probes: KernelBuffer<Float>
        var distances: KernelMutableBuffer<Float>
        var count: Int32
        var length: Int32
    }

    static let kernel = Kernel<Arguments>(
        "embedding_distance",
        in: KernelSource(name: "EmbeddingDistance", bytes: FaceRecognitionCL.embeddingDistance),
        schedules: .uniform([64, 1])
    ) { arguments, grid in
        // A row of the gallery is read once from memory for every probe: four rows against four probes at a
        // time (RowArithmetic.squaredDistances; the last probe repeated where fewer are left, so that one probe
        // too has four sums in flight), rows left at the end one pair at a time, every pair's sum the same.
        let count = Int(arguments.count), length = Int(arguments.length), probeCount = grid[1]
        CPUParallel.forEachRange(count) { rows in
            let gallery = arguments.gallery.elements, probes = arguments.probes.elements
            let distances = arguments.distances.elements
            func row(_ i: Int) -> UnsafePointer<Float> { gallery + i * length }
            func probe(_ p: Int) -> UnsafePointer<Float> { probes + min(p, probeCount - 1) * length }
            var i = rows.lowerBound
            while i + 4 <= rows.upperBound {
                for p in stride(from: 0, to: probeCount, by: 4) {
                    let tile = RowArithmetic.squaredDistances(
                        (row(i), row(i + 1), row(i + 2), row(i + 3)),
                        (probe(p), probe(p + 1), probe(p + 2), probe(p + 3)),
                        count: length)
                    for pair in 0..<16 where p + pair % 4 < probeCount {
                        distances[(p + pair % 4) * count + i + pair / 4] = tile[pair].squareRoot()
                    }
                }
                i += 4
            }
            for r in i..<rows.upperBound {
                for p in 0..<probeCount {
                    distances[p * count + r] = RowArithmetic.squaredDistance(row(r), probe(p), count: length)
                        .squareRoot()
                }
            }
        }
    }
}
