/// A TFLite model's graph as a ``Network``: constant tensors dequantised (float16) and densified once
/// at load, NHWC weights reordered for NCHW layers, PAD folded into the convolution or sum that reads it,
/// and the heads' RESHAPE and CONCATENATION made one ``ChannelsLast`` per output. An operator, option or
/// pattern it cannot map is a ``ModelError/unsupported(path:what:)`` naming it.
///
/// The network reads an NCHW float tensor of ``inputChannels`` × ``inputHeight`` × ``inputWidth`` and
/// yields the model's outputs in order, each as rows (an output `[1, anchors, k]` is `k` wide and
/// `anchors` high).
public struct TFLiteNetwork: Sendable {
    public let network: Network
    public let inputWidth: Int
    public let inputHeight: Int
    public let inputChannels: Int
    /// The model's output tensors' names, in the order of the network's outputs.
    public let outputNames: [String]

    /// Reads the model at `path`; see ``init(_:inputScale:inputShift:)``.
    public init(contentsOf path: String, inputScale: Float = 1, inputShift: Float = 0) throws(ModelError) {
        try self.init(try TFLiteModel(contentsOf: path), inputScale: inputScale, inputShift: inputShift)
    }

    /// The network of `model`'s first graph. Its input is first mapped to `inputScale · x + inputShift`:
    /// the normalisation the model was trained with, which TFLite files do not record (MediaPipe's
    /// BlazeFace reads pixels in −1…1, that is 2 · (v ÷ 255) − 1 of a tensor converted from `uint8`).
    public init(_ model: TFLiteModel, inputScale: Float = 1, inputShift: Float = 0) throws(ModelError) {
        var builder = try Builder(model)
        if inputScale != 1 || inputShift != 0 {
            let channels = builder.inputShape.channels
            builder.nodes[builder.graph.inputs[0]] = builder.network.append(
                .channelAffine(
                    scale: Array(repeating: inputScale, count: channels),
                    shift: Array(repeating: inputShift, count: channels),
                    rectified: false))
        }
        for op in builder.graph.operators { try builder.add(op) }
        network = try builder.finish()
        (inputHeight, inputWidth, inputChannels) = builder.inputShape
        outputNames = builder.graph.outputs.map { builder.graph.tensors[$0].name }
    }

    /// The conversion's state as it walks the operators in order.
    private struct Builder {
        let path: String
        let graph: TFLiteModel.Subgraph
        let inputShape: (height: Int, width: Int, channels: Int)
        var network = Network()
        /// Tensors computed by the network: their node.
        var nodes: [Int: Int] = [:]
        /// Constant tensors (weights, biases) as floats, and integer constants (pads, shapes, sizes).
        var constants: [Int: [Float]] = [:]
        var integers: [Int: [Int]] = [:]
        /// PAD results not yet read: the padded tensor and the pads [[before, after]] of N, H, W, C.
        var pads: [Int: (source: Int, pads: [[Int]])] = [:]
        /// RESHAPE and CONCATENATION results not yet read: the tensors laid out as rows of `rowLength`.
        var rows: [Int: (sources: [Int], rowLength: Int)] = [:]

        init(_ model: TFLiteModel) throws(ModelError) {
            path = model.path
            guard let graph = model.subgraphs.first, graph.inputs.count == 1 else {
                throw .unsupported(path: model.path, what: "a model without exactly one graph input")
            }
            self.graph = graph
            let input = graph.tensors[graph.inputs[0]]
            guard input.shape.count == 4, input.shape[0] == 1, input.type == .float32 else {
                throw .unsupported(
                    path: path,
                    what:
                        """
                        input \"\(input.name)\" of shape \(input.shape) and type \(input.type) (one float32 NHWC \
                        image)
                        """
                )
            }
            inputShape = (input.shape[1], input.shape[2], input.shape[3])
            nodes[graph.inputs[0]] = 0
            for (index, tensor) in graph.tensors.enumerated() where !model.buffers[tensor.buffer].isEmpty {
                let bytes = model.buffers[tensor.buffer]
                var stored: [Float]
                switch tensor.type {
                case .float32: stored = Self.values(bytes, as: UInt32.self) { Float(bitPattern: $0) }
                case .float16: stored = Self.values(bytes, as: UInt16.self) { Float(Float16(bitPattern: $0)) }
                case .int32:
                    integers[index] = Self.values(bytes, as: UInt32.self) { Int(Int32(bitPattern: $0)) }
                    continue
                default: continue
                }
                if let sparsity = tensor.sparsity {
                    let positions = try sparsity.denseIndices(
                        shape: tensor.shape, count: stored.count, tensor: tensor.name, path: path)
                    var dense = [Float](repeating: 0, count: tensor.elementCount)
                    for (value, position) in zip(stored, positions) { dense[position] = value }
                    stored = dense
                }
                guard stored.count == tensor.elementCount else {
                    throw .malformed(
                        path: path, offset: 0,
                        reason: "constant \"\(tensor.name)\" holds \(stored.count) values for shape \(tensor.shape)")
                }
                try ModelError.requireFinite(stored, tensor: "constant \"\(tensor.name)\"", path: path, offset: 0)
                constants[index] = stored
            }
        }

        /// Little-endian values of `T`'s size, converted.
        private static func values<T: FixedWidthInteger, V>(
            _ bytes: ArraySlice<UInt8>, as type: T.Type, _ convert: (T) -> V
        ) -> [V] {
            let size = MemoryLayout<T>.size
            return stride(from: bytes.startIndex, to: bytes.endIndex - size + 1, by: size).map { start in
                convert((0..<size).reversed().reduce(T(0)) { $0 << 8 | T(bytes[start + $1]) })
            }
        }

        func unsupported(_ what: String, _ op: TFLiteModel.Operator) -> ModelError {
            .unsupported(
                path: path,
                what: "\(op.kind.name) writing \"\(op.outputs.first.map { graph.tensors[$0].name } ?? "")\": \(what)")
        }

        func shape(_ tensor: Int) -> [Int] { graph.tensors[tensor].shape }

        /// The node computing `tensor`, which must not be a pending PAD or reshape.
        func node(_ tensor: Int, for op: TFLiteModel.Operator) throws(ModelError) -> Int {
            guard let node = nodes[tensor] else {
                throw unsupported(
                    "input \"\(graph.tensors[tensor].name)\" is not computed by a supported operator before it", op)
            }
            return node
        }

        func constant(_ tensor: Int, count: Int, for op: TFLiteModel.Operator) throws(ModelError) -> [Float] {
            guard tensor >= 0 else { return [Float](repeating: 0, count: count) }
            guard let values = constants[tensor], values.count == count else {
                throw unsupported("\"\(graph.tensors[tensor].name)\" is not a constant of \(count) values", op)
            }
            return values
        }

        mutating func add(_ op: TFLiteModel.Operator) throws(ModelError) {
            guard let output = op.outputs.first, let input = op.inputs.first else {
                throw unsupported("no input or output", op)
            }
            switch op.kind {
            case .dequantize, .densify:
                guard let values = constants[input] else { throw unsupported("its input is not a constant", op) }
                constants[output] = values
            case .pad:
                guard op.inputs.count == 2, let padding = integers[op.inputs[1]], padding.count == 8,
                    padding.allSatisfy({ $0 >= 0 }),
                    shape(input).count == 4
                else {
                    throw unsupported("pads must be a constant 4 × 2 of non-negative values on an NHWC tensor", op)
                }
                pads[output] = (input, stride(from: 0, to: 8, by: 2).map { [padding[$0], padding[$0 + 1]] })
            case .convolution(let padding, let stride, let dilation, let activation),
                .depthwiseConvolution(let padding, let stride, let dilation, _, let activation):
                try addConvolution(op, padding: padding, stride: stride, dilation: dilation, activation: activation)
            case .add(let activation):
                guard op.inputs.count == 2 else { throw unsupported("takes two inputs", op) }
                let sources = try op.inputs.map { (tensor: Int) throws(ModelError) -> Int in
                    // A PAD of trailing channels only: the sum reads the smaller tensor as zero there.
                    if let (source, padding) = pads[tensor] {
                        guard padding.dropLast().allSatisfy({ $0 == [0, 0] }), padding[3][0] == 0 else {
                            throw unsupported("a PAD before it other than of trailing channels", op)
                        }
                        return try node(source, for: op)
                    }
                    return try node(tensor, for: op)
                }
                guard shape(op.inputs[0]) == shape(op.inputs[1]) else {
                    throw unsupported("inputs of shapes \(shape(op.inputs[0])) and \(shape(op.inputs[1]))", op)
                }
                nodes[output] = network.append(.add(rectified: try rectified(activation, op)), inputs: sources)
            case .relu:
                nodes[output] = network.append(.relu, inputs: [try node(input, for: op)])
            case .maxPool(let padding, let stride, let filter, let activation):
                let input4 = shape(input), output4 = shape(output)
                guard
                    padding == .valid
                        || Self.samePadding(input4[1], filter.height, stride.y) == (0, 0)
                            && Self.samePadding(input4[2], filter.width, stride.x) == (0, 0)
                else {
                    throw unsupported("SAME padding that pads", op)
                }
                guard activation == .none else { throw unsupported("fused activation \(activation)", op) }
                let pooling = Pooling(
                    .max, windowWidth: filter.width, windowHeight: filter.height, strideX: stride.x, strideY: stride.y)
                guard output4[1] == (input4[1] - filter.height) / stride.y + 1,
                    output4[2] == (input4[2] - filter.width) / stride.x + 1
                else {
                    throw unsupported("output shape \(output4) from \(input4)", op)
                }
                nodes[output] = network.append(.pooling(pooling), inputs: [try node(input, for: op)])
            case .resizeBilinear(let alignCorners, let halfPixelCenters):
                guard !alignCorners, halfPixelCenters else {
                    throw unsupported("only half-pixel centres are supported", op)
                }
                let size = shape(output)
                guard size.count == 4 else { throw unsupported("output shape \(size)", op) }
                nodes[output] = network.append(
                    .resize(width: size[2], height: size[1]), inputs: [try node(input, for: op)])
            case .depthToSpace(let blockSize):
                nodes[output] = network.append(.depthToSpace(blockSize: blockSize), inputs: [try node(input, for: op)])
            case .reshape:
                let from = shape(input), to = shape(output)
                guard from.count == 4, to.count == 3, to[0] == from[0], let rowLength = to.last, rowLength > 0 else {
                    throw unsupported(
                        "only NHWC tensors to rows [batch, rows, length] are supported, not \(from) to \(to)", op)
                }
                rows[output] = ([try node(input, for: op)], rowLength)
            case .concatenation(let axis, let activation):
                let parts = op.inputs.compactMap { rows[$0] }
                guard parts.count == op.inputs.count, [1, -2].contains(axis), activation == .none,
                    let rowLength = parts.first?.rowLength, parts.allSatisfy({ $0.rowLength == rowLength })
                else {
                    throw unsupported("only rows of one length from RESHAPE joined along axis 1 are supported", op)
                }
                rows[output] = (parts.flatMap(\.sources), rowLength)
            }
        }

        mutating func addConvolution(
            _ op: TFLiteModel.Operator, padding: TFLiteModel.Padding, stride: (x: Int, y: Int),
            dilation: (x: Int, y: Int), activation: TFLiteModel.Activation
        ) throws(ModelError) {
            guard op.inputs.count >= 2, dilation == (1, 1), stride.x == stride.y else {
                throw unsupported("dilation \(dilation) or unequal strides \(stride)", op)
            }
            let weightShape = shape(op.inputs[1])
            var input = op.inputs[0], inputShape = shape(input)
            guard weightShape.count == 4, inputShape.count == 4 else {
                throw unsupported("weights of shape \(weightShape)", op)
            }
            let depthwise = if case .depthwiseConvolution = op.kind { true } else { false }
            let (outChannels, kh, kw, depth) =
                depthwise
                ? (weightShape[3], weightShape[1], weightShape[2], 1)
                : (weightShape[0], weightShape[1], weightShape[2], weightShape[3])
            let weights = try constant(op.inputs[1], count: weightShape.reduce(1, *), for: op)
            let biases = try constant(op.inputs.count > 2 ? op.inputs[2] : -1, count: outChannels, for: op)
            // Pads: the operator's own (SAME: the total split with the larger part after), plus a PAD read.
            var before = [0, 0], after = [0, 0]
            if padding == .same {
                (before[0], after[0]) = Self.samePadding(inputShape[1], kh, stride.y)
                (before[1], after[1]) = Self.samePadding(inputShape[2], kw, stride.x)
            }
            if let (source, pads) = pads[input] {
                guard pads[0] == [0, 0], pads[3] == [0, 0] else {
                    throw unsupported("a PAD before it of batch or channels", op)
                }
                for axis in 0..<2 {
                    (before[axis], after[axis]) = (before[axis] + pads[axis + 1][0], after[axis] + pads[axis + 1][1])
                }
                input = source
                inputShape = shape(source)
            }
            guard before[0] == before[1], after[0] == after[1] else {
                throw unsupported("different pads across and down", op)
            }
            // NHWC weights [out][y][x][in] (depthwise: [1][y][x][out]) to NCHW filters [out][in][y][x].
            var filters = [Float](repeating: 0, count: weights.count)
            for o in 0..<outChannels {
                for y in 0..<kh {
                    for x in 0..<kw {
                        for i in 0..<depth {
                            filters[((o * depth + i) * kh + y) * kw + x] =
                                depthwise
                                ? weights[(y * kw + x) * outChannels + o]
                                : weights[((o * kh + y) * kw + x) * depth + i]
                        }
                    }
                }
            }
            let groups = depthwise ? inputShape[3] : inputShape[3] / depth
            guard groups > 0, outChannels % groups == 0, inputShape[3] % groups == 0 else {
                throw unsupported("\(inputShape[3]) input channels for weights of shape \(weightShape)", op)
            }
            let expected = shape(op.outputs[0])
            guard expected.count == 4, expected[1] == (inputShape[1] + before[0] + after[0] - kh) / stride.y + 1,
                expected[2] == (inputShape[2] + before[1] + after[1] - kw) / stride.x + 1, expected[3] == outChannels
            else {
                throw unsupported("output shape \(expected) from \(inputShape) and weights \(weightShape)", op)
            }
            let convolution = Network.ConvolutionWeights(
                filters: filters, biases: biases, kernelWidth: kw, kernelHeight: kh, stride: stride.x,
                padding: before[0], trailingPadding: after[0], groups: groups,
                rectified: try rectified(activation, op))
            nodes[op.outputs[0]] = network.append(.convolution(convolution), inputs: [try node(input, for: op)])
        }

        /// TFLite's `SAME` padding of one axis: the output is ⌈size ÷ stride⌉ and the pad it needs is
        /// split with the larger part after.
        static func samePadding(_ size: Int, _ kernel: Int, _ stride: Int) -> (before: Int, after: Int) {
            let total = max(((size + stride - 1) / stride - 1) * stride + kernel - size, 0)
            return (total / 2, total - total / 2)
        }

        func rectified(_ activation: TFLiteModel.Activation, _ op: TFLiteModel.Operator) throws(ModelError) -> Bool {
            switch activation {
            case .none: return false
            case .relu: return true
            default: throw unsupported("fused activation \(activation)", op)
            }
        }

        /// The network with the graph's outputs as its outputs, fused.
        mutating func finish() throws(ModelError) -> Network {
            var outputs: [Int] = []
            for tensor in graph.outputs {
                if let node = nodes[tensor] {
                    outputs.append(node)
                } else if let (sources, rowLength) = rows[tensor] {
                    outputs.append(network.append(.channelsLast(rowLength: rowLength), inputs: sources))
                } else {
                    throw .unsupported(
                        path: path,
                        what: "output \"\(graph.tensors[tensor].name)\" is not computed by a supported operator")
                }
            }
            network.outputs = outputs
            return network.fused()
        }
    }
}
