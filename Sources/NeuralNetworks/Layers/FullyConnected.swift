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

    /// The CPU twin: batch items four at a time against sixteen outputs (a ``RegisterTile``), each tile of
    /// outputs' weights packed once for a run of items.
    static let kernel = Kernel<Arguments>(
        "fully_connected", in: KernelSource(name: "FullyConnected", bytes: NeuralNetworksCL.fullyConnected),
        schedules: .uniform([64, 1])
    ) { arguments, _ in
        let inputs = Int(arguments.inputs), outputs = Int(arguments.outputs), batch = Int(arguments.batch)
        let tiles = (outputs + 15) / 16, runLength = 64, runs = (batch + runLength - 1) / runLength
        CPUParallel.forEachRange(tiles * runs) { items in
            let src = arguments.src.elements, weights = arguments.weights.elements, dst = arguments.dst.elements
            let bias = arguments.bias.elements
            let panel = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 2 * inputs)
            defer { panel.deallocate() }
            var packed = -1
            for item in items {
                let tile = item / runs, first = tile * 16, width = min(16, outputs - first)
                if packed != tile {
                    UnsafeMutableRawPointer(panel).withMemoryRebound(to: Float.self, capacity: 16 * inputs) { floats in
                        for i in 0..<inputs {
                            for lane in 0..<16 {
                                floats[lane / 8 * inputs * 8 + i * 8 + lane % 8] =
                                    lane < width ? weights[i * outputs + first + lane] : 0
                            }
                        }
                    }
                    packed = tile
                }
                let run = item % runs * runLength
                var n = run
                while n < min(run + runLength, batch) {
                    let rows = min(4, batch - n)
                    func row(_ r: Int) -> UnsafePointer<Float> { src + (n + min(r, rows - 1)) * inputs }
                    let sums = RegisterTile(
                        row(0), row(1), row(2), row(3), low: panel, high: panel + inputs, depth: inputs)
                    for r in 0..<rows {
                        let out = dst + (n + r) * outputs + first
                        for lane in 0..<width {
                            out[lane] = sums.sums(row: r, half: lane / 8)[lane % 8] + bias[first + lane]
                        }
                    }
                    n += rows
                }
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
