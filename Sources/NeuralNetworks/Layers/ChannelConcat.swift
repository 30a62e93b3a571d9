import ImageKernels
import NeuralNetworksCL

/// Two tensors of one batch and plane size stacked along channels: the first's channels, then the
/// second's.
public struct ChannelConcat: Filter {
    public var name: String { "channel concat" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let inputs = try tensorInputs(inputs, count: 2)
        let (a, b) = (inputs[0], inputs[1])
        guard a.batch == b.batch, a.width == b.width, a.height == b.height else {
            throw .invalidInput(filter: name, reason: "\(a) and \(b) differ in batch or plane size")
        }
        var output = a
        output.channels = a.channels + b.channels
        return output
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let a = encoder.inputs[0].descriptor, b = encoder.inputs[1].descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                a: .init(encoder.inputs[0]), b: .init(encoder.inputs[1]), dst: .init(encoder.output),
                spatial: Int32(a.planePixelCount), aChannels: Int32(a.channels),
                bChannels: Int32(b.channels), batch: Int32(a.batch)),
            over: [a.planePixelCount, encoder.output.descriptor.planeCount])
    }

    struct Arguments: KernelArguments {
        var a: KernelBuffer<Float>
        var b: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var spatial: Int32
        var aChannels: Int32
        var bChannels: Int32
        var batch: Int32
    }

    static let kernel = Kernel<Arguments>(
        "channel_concat", in: KernelSource(name: "ChannelConcat", bytes: NeuralNetworksCL.channelConcat),
        schedules: .uniform([64, 1])
    ) { arguments, _ in
        let spatial = Int(arguments.spatial), aChannels = Int(arguments.aChannels), bChannels = Int(arguments.bChannels)
        let channels = aChannels + bChannels
        CPUParallel.forEachRange(Int(arguments.batch) * channels) { planes in
            let a = arguments.a.elements, b = arguments.b.elements, dst = arguments.dst.elements
            for plane in planes {
                let n = plane / channels, c = plane % channels
                let source =
                    c < aChannels ? a + (n * aChannels + c) * spatial : b + (n * bChannels + c - aChannels) * spatial
                (dst + plane * spatial).update(from: source, count: spatial)
            }
        }
    }
}

extension Image {
    /// `self`'s channels followed by `other`'s.
    public func concatenatingChannels(_ other: Image) -> Image {
        applying(ChannelConcat(), with: [other])
    }
}
