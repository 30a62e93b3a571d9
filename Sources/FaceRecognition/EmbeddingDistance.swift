import FaceRecognitionCL
import ImageKernels

/// Euclidean distances from a probe embedding to every row of a gallery image (one embedding per row):
/// exact nearest-neighbour search on the device. The output is one distance per row (1 wide).
public struct EmbeddingDistance: Filter {
    public let probe: [Float]
    public var name: String { "embedding distance" }

    public init(probe: [Float]) {
        self.probe = probe
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let gallery = try singleInput(inputs, of: .float32)
        guard gallery.width == probe.count, gallery.planeCount == 1 else {
            throw .invalidInput(filter: name, reason: "gallery rows of \(gallery.width) values, probe of \(probe.count)")
        }
        return gallery.with(width: 1, height: gallery.height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let gallery = encoder.input.descriptor
        try encoder.launch(Self.kernel, Arguments(gallery: .init(encoder.input), probe: probe, distances: .init(encoder.output),
                                                  count: Int32(gallery.height), length: Int32(gallery.width)),
                           over: [gallery.height])
    }

    struct Arguments: KernelArguments {
        var gallery: KernelBuffer<Float>
        var probe: [Float]
        var distances: KernelMutableBuffer<Float>
        var count: Int32
        var length: Int32
    }

    static let kernel = Kernel<Arguments>("embedding_distance",
                                          in: KernelSource(name: "EmbeddingDistance", bytes: FaceRecognitionCL.embeddingDistance),
                                          schedules: .uniform([64])) { arguments, _ in
        let length = Int(arguments.length), probe = arguments.probe
        CPUParallel.forEachRange(Int(arguments.count)) { rows in
            let gallery = arguments.gallery.elements, distances = arguments.distances.elements
            for i in rows {
                var sum: Float = 0
                for k in 0..<length {
                    let d = gallery[i * length + k] - probe[k]
                    sum += d * d
                }
                distances[i] = sum.squareRoot()
            }
        }
    }
}
