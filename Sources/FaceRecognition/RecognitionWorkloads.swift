import ImageKernels

/// The kinds of recognition work whose device `auto` picks by timing them (``Device/best(for:)``), each
/// timed on made-up inputs of a typical size: their content does not change the work these kernels do.
extension Workload {
    /// Describing faces: a batch of 32 crops through the face chain to LBP block histograms.
    public static let describing = Workload(name: "describing", version: 1) { context in
        let describer = try FaceDescriber(context: context)
        var generator = WorkloadNoise()
        let crops = try PixelBuffer(width: 128, height: 128, batch: 32, values: (0..<128 * 128 * 32).map { _ in generator.byte() })
        return { _ = try describer.describe(crops) }
    }

    /// Embedding faces: a batch of 8 chips through dlib's ResNet (the model from the model cache).
    public static let embedding = Workload(name: "embedding", version: 1) { context in
        let embedder = try FaceEmbedder(context: context)
        var generator = WorkloadNoise()
        let side = embedder.chipSize
        let chips = try PixelBuffer(width: side, height: side, channels: 3, batch: 8, values: (0..<side * side * 24).map { _ in generator.byte() })
        return { _ = try embedder.embeddings(of: chips) }
    }

    /// Searching: a probe against 800 faces' LBP descriptors by full NBNN and against 10,000 embeddings,
    /// and the neighbours of 1,000 embeddings among themselves (clustering's search).
    public static let search = Workload(name: "search", version: 1) { context in
        var generator = WorkloadNoise()
        let parameters = DescriptorParameters.standard
        func descriptor() throws -> FaceDescriptor {
            try FaceDescriptor(parameters: parameters, histograms: (0..<parameters.length).map { _ in generator.unit() })
        }
        let gallery = Gallery(parameters: parameters, context: context)
        try gallery.append((0..<800).map { (try descriptor(), FaceID(Int64($0)), ImageID(Int64($0))) })
        let probe = try descriptor()
        let embeddings = EmbeddingGallery(context: context)
        let rows = (0..<10_000).map { _ in (0..<FaceEmbedder.length).map { _ in generator.unit() - 0.5 } }
        try embeddings.append(rows.enumerated().map { ($1, FaceID(Int64($0)), ImageID(Int64($0))) })
        let neighbours = try context.makeResidentImage(ImageDescriptor(width: FaceEmbedder.length, height: 1_000, elementType: .float32),
                                                       contents: Array(rows.prefix(1_000).joined())[...])
        return {
            var faces = TopFaces(10)
            try gallery.search(probe, options: SearchOptions(matcher: .nbnn), into: &faces)
            try embeddings.search(rows[0], into: &faces)
            _ = try context.render(neighbours.image.applying(EmbeddingNeighbours(queryStart: 0, queryCount: 1_000, count: 1_000, k: 16,
                                                                                 radius: FaceClustering.defaultThreshold)))
        }
    }
}

/// Made-up inputs for workloads: a fixed sequence, so that every device gets the same work.
struct WorkloadNoise {
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 11
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 20) }

    /// In [0, 1).
    mutating func unit() -> Float { Float(next() >> 29) / Float(1 << 24) }
}
