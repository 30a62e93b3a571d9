import ImageKernels

/// One layer's work in a ``Network``: the weights it keeps on the device and the recipe it makes of its
/// input nodes' recipes. Each layer's file declares its operation (a filter without weights is one as it
/// is); model readers append them, and nothing else needs to know them.
public protocol NetworkOperation: Sendable {
    /// The weights kept on the device, each a row-major matrix of `width` columns; none by default.
    var weights: [(values: [Float], width: Int)] { get }
    /// The recipe of the operation on `inputs`, the recipes of its input nodes, with its ``weights`` as
    /// resident images.
    func apply(to inputs: [Image], weights: [Image]) -> Image
    /// This operation and `next` after it as one, or nil where they do not merge (the default).
    func followed(by next: any NetworkOperation) -> (any NetworkOperation)?
    /// This operation with a second input node added to its result (then a ReLU where `rectified`), or nil
    /// where it does not take one in (the default).
    func summed(rectified: Bool) -> (any NetworkOperation)?
    /// `previous`, whose output only this operation reads, and this operation after it as one, or nil where
    /// this one does not take it in (the default).
    func preceded(by previous: any NetworkOperation) -> (any NetworkOperation)?
}

extension NetworkOperation {
    public var weights: [(values: [Float], width: Int)] { [] }
    public func followed(by next: any NetworkOperation) -> (any NetworkOperation)? { nil }
    public func summed(rectified: Bool) -> (any NetworkOperation)? { nil }
    public func preceded(by previous: any NetworkOperation) -> (any NetworkOperation)? { nil }
    /// Whether this is a plain ReLU, which the operations before it can take in.
    var isRectifier: Bool { (self as? Activation)?.function == .relu }
}

extension NetworkOperation where Self: Filter {
    /// A filter without weights applies to its input nodes, the first one as the image it filters.
    public func apply(to inputs: [Image], weights: [Image]) -> Image {
        Image(applying: self, to: inputs)
    }
}

/// A feed-forward network as data: nodes in order, each an operation on earlier nodes' outputs. Node 0 is
/// the input; ``outputs`` are the nodes it yields (the last one unless set). Model readers build one;
/// ``loaded(on:)`` puts its weights on a device, once.
public struct Network: Sendable {
    /// The network's input (node 0 only).
    public struct Input: NetworkOperation {
        public func apply(to inputs: [Image], weights: [Image]) -> Image { inputs[0] }
    }

    public struct Node: Sendable {
        public var operation: any NetworkOperation
        /// The nodes read, by index; empty for the input.
        public var inputs: [Int]
    }

    public private(set) var nodes: [Node] = [Node(operation: Input(), inputs: [])]
    /// The nodes whose results the network yields, in order; empty means the last node.
    public var outputs: [Int] = []

    /// ``outputs``, or the last node when none are set.
    var resultNodes: [Int] { outputs.isEmpty ? [nodes.count - 1] : outputs }

    public init() {}

    /// Appends `operation` reading `inputs` (default: the last node); returns the new node's index.
    @discardableResult
    public mutating func append(_ operation: some NetworkOperation, inputs: [Int]? = nil) -> Int {
        nodes.append(Node(operation: operation, inputs: inputs ?? [nodes.count - 1]))
        return nodes.count - 1
    }

    /// The same function with fewer launches: each operation merged into the one before it where that one
    /// takes it in (``NetworkOperation/followed(by:)``: an affine map or a ReLU into a convolution, a 1 × 1
    /// convolution into the depthwise one it reads, a ReLU into an affine map or a sum), and a sum of two
    /// nodes into the later of them where that one takes it in (``NetworkOperation/summed(rectified:)``: a
    /// separable convolution), then each operation into the one after it where that one takes it in
    /// (``NetworkOperation/preceded(by:)``: a 1 × 1 convolution into the separable convolution it expands), in
    /// each case where nothing else reads the earlier node.
    public func fused() -> Network {
        let readers = readerCounts()
        var result = Network(), map = [0]  // old index → new index
        for node in nodes.dropFirst() {
            let inputs = node.inputs.map { map[$0] }
            let previous = inputs.count == 1 && readers[node.inputs[0]] == 1 ? inputs[0] : nil
            if let previous, let merged = result.nodes[previous].operation.followed(by: node.operation) {
                result.nodes[previous].operation = merged
                map.append(previous)
            } else if let sum = node.operation as? ResidualAdd,
                let merged = result.merge(sum, inputs: inputs, readOnce: node.inputs.map { readers[$0] == 1 })
            {
                map.append(merged)
            } else {
                map.append(result.append(node.operation, inputs: inputs))
            }
        }
        result.outputs = resultNodes.map { map[$0] }
        return result.mergingPredecessors()
    }

    /// How many nodes read each node's output, an output of the network counting as one (its value must stay
    /// as it is).
    private func readerCounts() -> [Int] {
        var readers = [Int](repeating: 0, count: nodes.count)
        for input in nodes.flatMap(\.inputs) { readers[input] += 1 }
        for output in resultNodes { readers[output] += 1 }
        return readers
    }

    /// The network with each node's first input merged into it where only it reads that input, the input
    /// reads one node, and it takes the input's operation in (``NetworkOperation/preceded(by:)``).
    private func mergingPredecessors() -> Network {
        let readers = readerCounts()
        var merged = nodes, taken = Set<Int>()
        for index in nodes.indices {
            guard let first = merged[index].inputs.first, first > 0, readers[first] == 1,
                merged[first].inputs.count == 1,
                let operation = merged[index].operation.preceded(by: merged[first].operation)
            else { continue }
            merged[index].operation = operation
            merged[index].inputs[0] = merged[first].inputs[0]
            taken.insert(first)
        }
        var result = Network(), map = [Int](repeating: 0, count: nodes.count)  // old index → new index
        for index in nodes.indices.dropFirst() where !taken.contains(index) {
            map[index] = result.append(merged[index].operation, inputs: merged[index].inputs.map { map[$0] })
        }
        result.outputs = outputs.map { map[$0] }
        return result
    }

    /// Merges `sum` of the nodes `inputs` into the later of them where only the sum reads that one
    /// (`readOnce`) and it takes in the other (``NetworkOperation/summed(rectified:)``); returns its index.
    private mutating func merge(_ sum: ResidualAdd, inputs: [Int], readOnce: [Bool]) -> Int? {
        guard inputs.count == 2, inputs[0] != inputs[1] else { return nil }
        let later = inputs[0] < inputs[1] ? 1 : 0, node = inputs[later]
        guard readOnce[later], let merged = nodes[node].operation.summed(rectified: sum.rectified) else { return nil }
        nodes[node].operation = merged
        nodes[node].inputs.append(inputs[1 - later])
        return node
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
        parameters = try network.nodes.map { node throws(RenderError) in
            try node.operation.weights.map { weights throws(RenderError) in
                try context.makeResidentImage(
                    try PixelBuffer(
                        width: weights.width, height: weights.values.count / weights.width,
                        values: weights.values)
                ).image
            }
        }
        nodes = network.nodes
        resultNodes = network.resultNodes
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
            let inputs = index == 0 ? [input] : node.inputs.map { outputs[$0] }
            outputs.append(node.operation.apply(to: inputs, weights: parameters[index]))
        }
        return resultNodes.map { outputs[$0] }
    }
}
