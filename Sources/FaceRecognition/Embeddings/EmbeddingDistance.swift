import FaceRecognitionCL
import ImageKernels

/// Euclidean distances from a probe embedding to the first `count` rows of a gallery image (one
/// embedding per row; rows past them are spare capacity): exact nearest-neighbour search on the device.
/// The output is one distance per row searched (1 wide).
public struct EmbeddingDistance: Filter {
    public let probe: [Float]
    public let count: Int
    public var name: String { "embedding distance" }

    public init(probe: [Float], count: Int) {
        self.probe = probe
        self.count = count
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let gallery = try singleInput(inputs, of: .float32)
        guard gallery.width == probe.count, gallery.planeCount == 1, (1...gallery.height).contains(count) else {
            throw .invalidInput(
                filter: name,
                reason: "\(count) rows of \(gallery.width) values searched in \(gallery), probe of \(probe.count)")
        }
        return gallery.with(width: 1, height: count)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        try encoder.launch(
            Self.kernel,
            Arguments(
                gallery: .init(encoder.input), probe: probe, distances: .init(encoder.output),
                count: Int32(count), length: Int32(probe.count)),
            over: [count])
    }

    struct Arguments: KernelArguments {
        var gallery: KernelBuffer<Float>
        var probe: [Float]
        var distances: KernelMutableBuffer<Float>
        var count: Int32
        var length: Int32
    }

    static let kernel = Kernel<Arguments>(
        "embedding_distance",
        in: KernelSource(name: "EmbeddingDistance", bytes: FaceRecognitionCL.embeddingDistance),
        schedules: .uniform([64])
    ) { arguments, _ in
        let length = Int(arguments.length), probe = arguments.probe
        CPUParallel.forEachRange(Int(arguments.count)) { rows in
            let gallery = arguments.gallery.elements, distances = arguments.distances.elements
            probe.withUnsafeBufferPointer { probe in
                guard let probe = probe.baseAddress else { return }
                for i in rows {
                    distances[i] = RowArithmetic.squaredDistance(gallery + i * length, probe, count: length)
                        .squareRoot()
                }
            }
        }
    }
}
