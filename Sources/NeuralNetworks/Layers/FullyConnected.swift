import ImageKernels
import NeuralNetworksCL

/// A fully connected layer: each batch item's whole tensor (channels × height × width values) times a
/// weight matrix, plus biases. Inputs: the tensor, the weights (a float image `outputs` wide and
/// `inputs` high: row i holds input i's weight for every output, dlib's layout) and the biases
/// (`outputs` values). The output is `outputs` channels of 1 × 1.
public struct FullyConnected: Filter {
    public var name: String { "fully connected" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let inputs = try tensorInputs(inputs, count: 3)
        let (input, weights, biases) = (inputs[0], inputs[1], inputs[2])
        let count = input.channels * input.planePixelCount
        guard weights.planeCount == 1, weights.height == count, biases.holds(weights.width) else {
            throw .invalidInput(
                filter: name, reason: "weights \(weights) and biases \(biases) do not fit \(count) inputs")
        }
        return ImageDescriptor(width: 1, height: 1, channels: weights.width, batch: input.batch, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), weights: .init(encoder.inputs[1]), bias: .init(encoder.inputs[2]),
                dst: .init(encoder.output), inputs: Int32(input.channels * input.planePixelCount),
                outputs: Int32(output.channels), batch: Int32(input.batch)),
            over: [output.channels, input.batch])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var weights: KernelBuffer<Float>
        var bias: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var inputs: Int32
        var outputs: Int32
        var batch: Int32
    }

    static let kernel = Kernel<Arguments>(
        "fully_connected", in: KernelSource(name: "FullyConnected", bytes: NeuralNetworksCL.fullyConnected),
        schedules: .uniform([64, 1])
    ) { arguments, _ in
        let inputs = Int(arguments.inputs), outputs = Int(arguments.outputs)
        CPUParallel.forEachRange(Int(arguments.batch)) { items in
            let src = arguments.src.elements, weights = arguments.weights.elements, dst = arguments.dst.elements
            for n in items {
                let out = dst + n * outputs
                for j in 0..<outputs { out[j] = 0 }
                for i in 0..<inputs {
                    let x = src[n * inputs + i], row = weights + i * outputs
                    for j in 0..<outputs { out[j] += x * row[j] }
                }
                for j in 0..<outputs { out[j] += arguments.bias.elements[j] }
            }
        }
    }
}

extension Image {
    /// Each batch item's values times `weights` (inputs × outputs) plus `biases`.
    public func fullyConnected(weights: Image, biases: Image) -> Image {
        applying(FullyConnected(), with: [weights, biases])
    }
}

extension Network {
    /// A fully connected layer as a network operation, its weights (inputs × outputs) and biases resident.
    public struct FullyConnectedWeights: NetworkOperation {
        public var values: [Float]
        public var biases: [Float]

        public init(weights: [Float], biases: [Float]) {
            (values, self.biases) = (weights, biases)
        }

        public var weights: [(values: [Float], width: Int)] { [(values, biases.count), (biases, biases.count)] }

        public func apply(to inputs: [Image], weights: [Image]) -> Image {
            inputs[0].fullyConnected(weights: weights[0], biases: weights[1])
        }
    }
}

extension NetworkOperation where Self == Network.FullyConnectedWeights {
    /// Each batch item's values times `weights` (inputs × outputs) plus `biases`.
    public static func fullyConnected(weights: [Float], biases: [Float]) -> Self {
        Network.FullyConnectedWeights(weights: weights, biases: biases)
    }
}
