/// One layer's record in a dlib network file (dlib/dnn/layers.h), as an operation of ours.
enum DlibLayerRecord {
    case operation(any NetworkOperation)
    /// `add_prev`: the sum with a tagged earlier output.
    case addPrevious

    init(_ archive: inout DlibArchive) throws(ModelError) {
        let start = archive.offset
        let name = try archive.string()
        switch name {
        case "con_4", "con_5", "con_6":
            let parameters = try archive.tensor()
            let count = try archive.integer(in: 1...65536, "filter count")
            let rows = try archive.integer(in: 1...64, "kernel rows"),
                columns = try archive.integer(in: 1...64, "kernel columns")
            let strideY = try archive.integer(in: 1...64, "stride"), strideX = try archive.integer(in: 1...64, "stride")
            let paddingY = try archive.integer(in: 0...64, "padding"),
                paddingX = try archive.integer(in: 0...64, "padding")
            let filterShape = try archive.aliasTensor()
            _ = try archive.aliasTensor()
            for _ in 0..<4 { _ = try archive.float() }  // learning-rate and weight-decay multipliers
            let hasBias = name == "con_4" ? true : try archive.boolean()
            let rectified = name == "con_6" ? try archive.boolean() : false
            guard strideX == strideY, paddingX == paddingY, rows == filterShape[2], columns == filterShape[3],
                filterShape[0] == count
            else {
                throw archive.malformed(
                    "convolution \(name) with unequal strides or paddings or filters \(filterShape) is not supported",
                    at: start)
            }
            let weightCount = filterShape.reduce(1, *)
            guard parameters.values.count == weightCount + (hasBias ? count : 0) else {
                throw archive.malformed(
                    "convolution parameters hold \(parameters.values.count) values, not \(weightCount) + biases",
                    at: start)
            }
            self = .operation(
                Network.ConvolutionWeights(
                    filters: Array(parameters.values[..<weightCount]),
                    biases: hasBias ? Array(parameters.values[weightCount...]) : [Float](repeating: 0, count: count),
                    kernelWidth: columns, kernelHeight: rows, stride: strideX, padding: paddingX,
                    groups: 1, rectified: rectified))
        case "affine_", "affine_2":
            let parameters = try archive.tensor()
            let gamma = try archive.aliasTensor().reduce(1, *)
            _ = try archive.aliasTensor()
            let mode = try archive.integer()
            if name == "affine_2" { _ = try archive.boolean() }
            guard mode == 0, parameters.values.count == 2 * gamma else {
                throw archive.malformed(
                    """
                    affine layer of mode \(mode) with \(parameters.values.count) parameters is not a per-channel \
                    affine map
                    """,
                    at: start)
            }
            self = .operation(
                Network.ChannelAffineWeights(
                    scale: Array(parameters.values[..<gamma]), shift: Array(parameters.values[gamma...]),
                    rectified: false))
        case "relu_", "relu_2":
            if name == "relu_2" { _ = try archive.boolean() }
            self = .operation(Activation(.relu))
        case "max_pool_2", "avg_pool_2":
            let rows = try archive.integer(in: 0...64, "pool rows"),
                columns = try archive.integer(in: 0...64, "pool columns")
            let strideY = try archive.integer(in: 1...64, "stride"), strideX = try archive.integer(in: 1...64, "stride")
            let paddingY = try archive.integer(in: 0...64, "padding"),
                paddingX = try archive.integer(in: 0...64, "padding")
            let kind: Pooling.Kind = name == "max_pool_2" ? .max : .average
            if rows == 0 && columns == 0 {
                self = .operation(Pooling.global(kind))
            } else {
                guard rows > 0, columns > 0 else { throw archive.malformed("a pool of \(rows)×\(columns)", at: start) }
                self = .operation(
                    Pooling(
                        kind, windowWidth: columns, windowHeight: rows, strideX: strideX, strideY: strideY,
                        paddingX: paddingX, paddingY: paddingY))
            }
        case "add_prev_":
            self = .addPrevious
        case "fc_2", "fc_3":
            let outputs = try archive.integer(in: 1...(1 << 20), "outputs"),
                inputs = try archive.integer(in: 1...(1 << 24), "inputs")
            let parameters = try archive.tensor()
            _ = try archive.aliasTensor()
            _ = try archive.aliasTensor()
            let biasMode = try archive.integer(in: 0...1, "bias mode")
            for _ in 0..<4 { _ = try archive.float() }
            let hasBias = (name == "fc_3" ? try archive.boolean() : true) && biasMode == 0
            guard parameters.values.count == (inputs + (hasBias ? 1 : 0)) * outputs else {
                throw archive.malformed(
                    "fully connected parameters hold \(parameters.values.count) values for \(inputs) → \(outputs)",
                    at: start)
            }
            self = .operation(
                Network.FullyConnectedWeights(
                    weights: Array(parameters.values[..<(inputs * outputs)]),
                    biases: hasBias
                        ? Array(parameters.values[(inputs * outputs)...])
                        : [Float](repeating: 0, count: outputs)))
        default:
            throw archive.malformed("layer \(name) is not supported", at: start)
        }
    }
}

extension DlibArchive {
    /// Whether a string starting with `prefix` comes next (the offset does not move).
    func nextStringStarts(with prefix: String) throws(ModelError) -> Bool {
        var copy = self
        guard let text = try? copy.string() else { return false }
        return text.hasPrefix(prefix)
    }

    /// What an add_layer wrapper stores after its layer record (training state, unused here): three
    /// bools and gradient and output tensors, and in newer versions the sample expansion factor.
    mutating func skipWrapperState(version: Int, inputLayer: Bool) throws(ModelError) {
        for _ in 0..<3 { _ = try boolean() }
        let tensors = inputLayer || version >= 2 ? 3 : 2
        for _ in 0..<tensors { _ = try tensor() }
        if inputLayer && version >= 3 { _ = try integer() }
    }
}
