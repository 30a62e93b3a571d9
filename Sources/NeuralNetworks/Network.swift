import ImageKernels

/// A feed-forward network as data: nodes in order, each an operation on earlier nodes' outputs. Node 0 is
/// the input; ``outputs`` are the nodes it yields (the last one unless set). Model readers build one;
/// ``loaded(on:)`` puts its weights on a device, once.
public struct Network: Sendable {
    /// One layer's work.
    public enum Operation: Sendable {
        /// The network's input (node 0 only).
        case input
        case convolution(ConvolutionWeights)
        case channelAffine(scale: [Float], shift: [Float], rectified: Bool)
        case relu
        case pooling(Pooling)
        /// The sum of the two input nodes (zero-padded to the larger shape), then a ReLU when `rectified`.
        case add(rectified: Bool)
        /// `weights` is inputs × outputs.
        case fullyConnected(weights: [Float], biases: [Float])
        case l2Normalization
        /// Bilinear resampling of every plane (half-pixel centres) to `width` × `height`.
        case resize(width: Int, height: Int)
        case depthToSpace(blockSize: Int)
        /// The input nodes' elements in NHWC order, one after another, as rows of `rowLength`.
        case channelsLast(rowLength: Int)
    }

    public struct Node: Sendable {
        public var operation: Operation
        /// The nodes read, by index; empty for the input.
        public var inputs: [Int]
    }

    /// A convolution's parameters: filters `outChannels` × (channels / groups · kernelHeight · kernelWidth);
    /// `padding` before the first row and column, `trailingPadding` after the last.
    public struct ConvolutionWeights: Sendable {
        public var filters: [Float]
        public var biases: [Float]
        public var kernelWidth: Int, kernelHeight: Int, stride: Int, padding: Int, trailingPadding: Int, groups: Int
        public var rectified: Bool
        public var outChannels: Int { biases.count }

        public init(filters: [Float], biases: [Float], kernelWidth: Int, kernelHeight: Int, stride: Int = 1, padding: Int = 0,
                    trailingPadding: Int? = nil, groups: Int = 1, rectified: Bool = false) {
            self.filters = filters
            self.biases = biases
            (self.kernelWidth, self.kernelHeight, self.stride, self.padding, self.groups) = (kernelWidth, kernelHeight, stride, padding, groups)
            self.trailingPadding = trailingPadding ?? padding
            self.rectified = rectified
        }
    }

    public private(set) var nodes: [Node] = [Node(operation: .input, inputs: [])]
    /// The nodes whose results the network yields, in order; empty means the last node.
    public var outputs: [Int] = []

    /// ``outputs``, or the last node when none are set.
    var resultNodes: [Int] { outputs.isEmpty ? [nodes.count - 1] : outputs }

    public init() {}

    /// Appends `operation` reading `inputs` (default: the last node); returns the new node's index.
    @discardableResult
    public mutating func append(_ operation: Operation, inputs: [Int]? = nil) -> Int {
        nodes.append(Node(operation: operation, inputs: inputs ?? [nodes.count - 1]))
        return nodes.count - 1
    }

    /// The same function with fewer launches: an affine map folded into the convolution before it, and a
    /// ReLU into the convolution, affine map or sum before it, where nothing else reads the earlier node.
    public func fused() -> Network {
        var readers = [Int](repeating: 0, count: nodes.count)
        for node in nodes { node.inputs.forEach { readers[$0] += 1 } }
        for output in resultNodes { readers[output] += 1 }   // an output's value must stay as it is
        var result = Network(), map = [0]   // old index → new index
        for node in nodes.dropFirst() {
            let inputs = node.inputs.map { map[$0] }
            let previous = inputs.count == 1 && readers[node.inputs[0]] == 1 ? inputs[0] : nil
            if let previous, let merged = Self.merge(node.operation, into: result.nodes[previous].operation) {
                result.nodes[previous].operation = merged
                map.append(previous)
            } else {
                map.append(result.append(node.operation, inputs: inputs))
            }
        }
        result.outputs = resultNodes.map { map[$0] }
        return result
    }

    /// `earlier` followed by `next` as one operation, or nil when they do not merge.
    private static func merge(_ next: Operation, into earlier: Operation) -> Operation? {
        switch (next, earlier) {
        case (.channelAffine(let scale, let shift, false), .convolution(var weights)) where !weights.rectified:
            let depth = weights.filters.count / weights.outChannels
            for o in 0..<weights.outChannels {
                for i in 0..<depth { weights.filters[o * depth + i] *= scale[o] }
                weights.biases[o] = weights.biases[o] * scale[o] + shift[o]
            }
            return .convolution(weights)
        case (.relu, .convolution(var weights)) where !weights.rectified:
            weights.rectified = true
            return .convolution(weights)
        case (.relu, .channelAffine(let scale, let shift, false)):
            return .channelAffine(scale: scale, shift: shift, rectified: true)
        case (.relu, .add(false)):
            return .add(rectified: true)
        default:
            return nil
        }
    }

    /// The network with its weights resident on `context`'s device.
    public func loaded(on context: RenderContext) throws(RenderError) -> LoadedNetwork {
        try LoadedNetwork(self, context: context)
    }
}

/// A network whose weights stay on one context's device: apply it to image recipes and render them with
/// that context.
public struct LoadedNetwork: Sendable {
    private let nodes: [Network.Node]
    private let parameters: [[Image]]

    init(_ network: Network, context: RenderContext) throws(RenderError) {
        func resident(_ values: [Float], width: Int) throws(RenderError) -> Image {
            try context.makeResidentImage(try PixelBuffer(width: width, height: values.count / width, values: values)).image
        }
        var parameters: [[Image]] = []
        for node in network.nodes {
            switch node.operation {
            case .convolution(let weights):
                parameters.append([try resident(weights.filters, width: weights.filters.count / weights.outChannels),
                                   try resident(weights.biases, width: weights.outChannels)])
            case .channelAffine(let scale, let shift, _):
                parameters.append([try resident(scale, width: scale.count), try resident(shift, width: shift.count)])
            case .fullyConnected(let weights, let biases):
                parameters.append([try resident(weights, width: biases.count), try resident(biases, width: biases.count)])
            case .input, .relu, .pooling, .add, .l2Normalization, .resize, .depthToSpace, .channelsLast:
                parameters.append([])
            }
        }
        nodes = network.nodes
        resultNodes = network.resultNodes
        self.parameters = parameters
    }

    private let resultNodes: [Int]

    /// The recipe of the network's (first) output for `input` (a float NCHW tensor).
    public func apply(to input: Image) -> Image {
        outputs(for: input)[0]
    }

    /// The recipes of all the network's outputs for `input`, in order; render them together so that the
    /// layers they share run once.
    public func outputs(for input: Image) -> [Image] {
        var outputs: [Image] = []
        for (index, node) in nodes.enumerated() {
            let inputs = node.inputs.map { outputs[$0] }, parameters = parameters[index]
            switch node.operation {
            case .input:
                outputs.append(input)
            case .convolution(let w):
                outputs.append(inputs[0].convolved(filters: parameters[0], biases: parameters[1], kernelWidth: w.kernelWidth,
                                                   kernelHeight: w.kernelHeight, stride: w.stride, padding: w.padding,
                                                   trailingPadding: w.trailingPadding, groups: w.groups, rectified: w.rectified))
            case .channelAffine(_, _, let rectified):
                outputs.append(inputs[0].channelAffine(scale: parameters[0], shift: parameters[1], rectified: rectified))
            case .relu:
                outputs.append(inputs[0].rectified())
            case .pooling(let pooling):
                outputs.append(inputs[0].applying(pooling))
            case .add(let rectified):
                outputs.append(inputs[0].adding(inputs[1], rectified: rectified))
            case .fullyConnected:
                outputs.append(inputs[0].fullyConnected(weights: parameters[0], biases: parameters[1]))
            case .l2Normalization:
                outputs.append(inputs[0].l2Normalized())
            case .resize(let width, let height):
                outputs.append(inputs[0].resized(width: width, height: height))
            case .depthToSpace(let blockSize):
                outputs.append(inputs[0].depthToSpace(blockSize: blockSize))
            case .channelsLast(let rowLength):
                outputs.append(inputs[0].channelsLast(rowLength: rowLength, appending: Array(inputs.dropFirst())))
            }
        }
        return resultNodes.map { outputs[$0] }
    }
}
