import ImageKernels
import NeuralNetworksCL

/// Each batch item's tensor scaled to unit Euclidean norm (a zero tensor stays zero): embeddings compared
/// by cosine distance.
public struct L2Normalization: Filter {
    public var name: String { "L2 normalisation" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try tensorInputs(inputs, count: 1)[0]
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output),
                count: Int32(input.elementCount / input.batch), batch: Int32(input.batch)),
            over: [input.batch])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var count: Int32
        var batch: Int32
    }

    static let kernel = Kernel<Arguments>(
        "l2_normalization", in: KernelSource(name: "L2Normalization", bytes: NeuralNetworksCL.l2Normalization),
        schedules: .uniform([16])
    ) { arguments, _ in
        let count = Int(arguments.count)
        CPUParallel.forEachRange(Int(arguments.batch)) { items in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for n in items {
                let x = src + n * count
                var sum: Float = 0
                for i in 0..<count { sum += x[i] * x[i] }
                let scale = sum > 0 ? 1 / sum.squareRoot() : 0
                for i in 0..<count { dst[n * count + i] = x[i] * scale }
            }
        }
    }
}

extension Image {
    /// Each batch item scaled to unit Euclidean norm.
    public func l2Normalized() -> Image {
        applying(L2Normalization())
    }
}

extension L2Normalization: NetworkOperation {}

extension NetworkOperation where Self == L2Normalization {
    /// Each batch item scaled to unit length.
    public static var l2Normalization: Self { L2Normalization() }
}
