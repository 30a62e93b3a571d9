import ImageKernels

/// The kinds of recognition work whose device `auto` picks by timing them (``Device/best(for:)``), each
/// timed on made-up inputs of a typical size: their content does not change the work these kernels do.
extension Workload {
    /// Describing faces: a batch of 32 crops through the face chain to LBP block histograms. (Version 2:
    /// the CPU twin of circular LBP became 5× faster, which moves the choice.)
    public static let describing = Workload(name: "describing", version: 2) { context in
        let describer = try FaceDescriber(context: context)
        var generator = Workload.Noise()
        let crops = try PixelBuffer(
            width: 128, height: 128, batch: 32, values: (0..<128 * 128 * 32).map { _ in generator.byte() })
        return { _ = try describer.describe(crops) }
    }

    /// Embedding faces: a batch of 8 chips through dlib's ResNet (the model from the model cache).
    public static let embedding = Workload(name: "embedding", version: 1) { context in
        let embedder = try FaceEmbedder(context: context)
        var generator = Workload.Noise()
        let side = embedder.chipSize
        let chips = try PixelBuffer(
            width: side, height: side, channels: 3, batch: 8,
            values: (0..<side * side * 24).map { _ in generator.byte() })
        return { _ = try embedder.embeddings(of: chips) }
    }

    /// Searching: a probe against 800 faces' LBP descriptors by full NBNN and against 10,000 embeddings,
    /// and the neighbours of 1,000 embeddings among themselves (clustering's search).
    public static let search = Workload(name: "search", version: 1) { context in
        var generator = Workload.Noise()
        let parameters = DescriptorParameters.standard
        func descriptor() throws -> FaceDescriptor {
            try FaceDescriptor(
                parameters: parameters, histograms: (0..<parameters.length).map { _ in generator.unit() })
        }
        let gallery = Gallery(parameters: parameters, context: context)
        try gallery.append((0..<800).map { (try descriptor(), FaceID(Int64($0)), ImageID(Int64($0))) })
        let probe = try descriptor()
        let embeddings = EmbeddingGallery(context: context)
        let rows = (0..<10_000).map { _ in (0..<FaceEmbedder.length).map { _ in generator.unit() - 0.5 } }
        try embeddings.append(rows.enumerated().map { ($1, FaceID(Int64($0)), ImageID(Int64($0))) })
        let neighbours = try context.makeResidentImage(
            ImageDescriptor(width: FaceEmbedder.length, height: 1_000, elementType: .float32),
            contents: Array(rows.prefix(1_000).joined())[...])
        return {
            var faces = TopFaces(10)
            try gallery.search(probe, options: SearchOptions(matcher: .nbnn), into: &faces)
            try embeddings.search(rows[0], into: &faces)
            _ = try context.render(
                neighbours.image.applying(
                    EmbeddingNeighbours(
                        queryStart: 0, queryCount: 1_000, count: 1_000, k: 16,
                        radius: FaceClustering.defaultThreshold)))
        }
    }
}
