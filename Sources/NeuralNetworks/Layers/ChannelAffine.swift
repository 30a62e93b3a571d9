import ImageKernels
import NeuralNetworksCL

/// A per-channel affine map, `x · scale[c] + shift[c]`: batch normalisation folded for inference (dlib's
/// `affine` layer), with an optional ReLU fused in. Inputs: the tensor, the scales and the shifts (one
/// value per channel each).
public struct ChannelAffine: Filter {
    public let rectified: Bool
    public var name: String { "channel affine" }

    public init(rectified: Bool = false) {
        self.rectified = rectified
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let inputs = try tensorInputs(inputs, count: 3)
        guard inputs[1].holds(inputs[0].channels), inputs[2].holds(inputs[0].channels) else {
            throw .invalidInput(filter: name, reason: "needs one scale and one shift per channel of \(inputs[0])")
        }
        return inputs[0]
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output),
                scale: .init(encoder.inputs[1]), shift: .init(encoder.inputs[2]),
                spatial: Int32(input.planePixelCount), channels: Int32(input.channels),
                planes: Int32(input.planeCount), relu: rectified ? 1 : 0),
            over: [input.planePixelCount, input.planeCount])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var scale: KernelBuffer<Float>
        var shift: KernelBuffer<Float>
        var spatial: Int32
        var channels: Int32
        var planes: Int32
        var relu: Int32
    }

    static let kernel = Kernel<Arguments>(
        "channel_affine", in: KernelSource(name: "ChannelAffine", bytes: NeuralNetworksCL.channelAffine),
        schedules: .uniform([64, 1])
    ) { arguments, _ in
        let spatial = Int(arguments.spatial), channels = Int(arguments.channels), relu = arguments.relu != 0
        CPUParallel.forEachRange(Int(arguments.planes)) { planes in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for plane in planes {
                let scale = arguments.scale.elements[plane % channels],
                    shift = arguments.shift.elements[plane % channels]
                for i in plane * spatial..<(plane + 1) * spatial {
                    let value = src[i] * scale + shift
                    dst[i] = relu ? max(value, 0) : value
                }
            }
        }
    }
}

extension Image {
    /// `x · scale[c] + shift[c]` per channel, then a ReLU when `rectified`.
    public func channelAffine(scale: Image, shift: Image, rectified: Bool = false) -> Image {
        applying(ChannelAffine(rectified: rectified), with: [scale, shift])
    }
}

extension Network {
    /// A per-channel affine map as a network operation, its scale and shift resident; it takes in a ReLU
    /// after it.
    public struct ChannelAffineWeights: NetworkOperation {
        public var scale: [Float]
        public var shift: [Float]
        public var rectified: Bool

        public init(scale: [Float], shift: [Float], rectified: Bool = false) {
            (self.scale, self.shift, self.rectified) = (scale, shift, rectified)
        }

        public var weights: [(values: [Float], width: Int)] { [(scale, scale.count), (shift, shift.count)] }

        public func apply(to inputs: [Image], weights: [Image]) -> Image {
            inputs[0].channelAffine(scale: weights[0], shift: weights[1], rectified: rectified)
        }

        public func followed(by next: any NetworkOperation) -> (any NetworkOperation)? {
            rectified || !next.isRectifier ? nil : ChannelAffineWeights(scale: scale, shift: shift, rectified: true)
        }
    }
}

extension NetworkOperation where Self == Network.ChannelAffineWeights {
    /// `x · scale[c] + shift[c]` per channel, then a ReLU when `rectified`.
    public static func channelAffine(scale: [Float], shift: [Float], rectified: Bool) -> Self {
        Network.ChannelAffineWeights(scale: scale, shift: shift, rectified: rectified)
    }
}
