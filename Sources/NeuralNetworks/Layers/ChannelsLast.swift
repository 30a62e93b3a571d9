import ImageKernels
import NeuralNetworksCL

/// Tensors laid out channels last and stacked as rows: each batch item's elements of every input in
/// NHWC order (TFLite's own), one after another, cut into rows of `rowLength`. TFLite's RESHAPE of an
/// NHWC tensor to `[batch, rows, rowLength]` and the CONCATENATION of such tensors along their rows,
/// which is how detection heads list their anchors' values.
public struct ChannelsLast: Filter {
    public let rowLength: Int
    public var name: String { "channels last, rows of \(rowLength)" }

    public init(rowLength: Int) {
        self.rowLength = rowLength
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let inputs = try tensorInputs(inputs, count: max(inputs.count, 1))
        guard rowLength > 0,
            inputs.allSatisfy({ $0.batch == inputs[0].batch && $0.elementCount / $0.batch % rowLength == 0 })
        else {
            throw .invalidInput(
                filter: name, reason: "inputs \(inputs) differ in batch or do not cut into rows of \(rowLength)")
        }
        let rows = inputs.map { $0.elementCount / $0.batch / rowLength }.reduce(0, +)
        return ImageDescriptor(width: rowLength, height: rows, batch: inputs[0].batch, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let plane = encoder.output.descriptor.planePixelCount
        var offset = 0
        for input in encoder.inputs {
            let d = input.descriptor
            try encoder.launch(
                Self.kernel,
                Arguments(
                    src: .init(input), dst: .init(encoder.output), channels: Int32(d.channels),
                    spatial: Int32(d.planePixelCount), batch: Int32(d.batch), dstOffset: Int32(offset),
                    dstPlane: Int32(plane)),
                over: [d.planePixelCount, d.channels, d.batch])
            offset += d.elementCount / d.batch
        }
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var channels: Int32
        var spatial: Int32
        var batch: Int32
        var dstOffset: Int32
        var dstPlane: Int32
    }

    static let kernel = Kernel<Arguments>(
        "channels_last", in: KernelSource(name: "ChannelsLast", bytes: NeuralNetworksCL.channelsLast),
        schedules: .uniform([64, 1, 1])
    ) { arguments, _ in
        let channels = Int(arguments.channels), spatial = Int(arguments.spatial), offset = Int(arguments.dstOffset)
        let plane = Int(arguments.dstPlane)
        CPUParallel.forEachRange(Int(arguments.batch) * channels) { planes in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for sourcePlane in planes {
                let n = sourcePlane / channels, c = sourcePlane % channels
                let source = src + sourcePlane * spatial, out = dst + n * plane + offset + c
                for i in 0..<spatial { out[i * channels] = source[i] }
            }
        }
    }
}

extension Image {
    /// This tensor's elements, then each of `others`', in NHWC order as rows of `rowLength`; see
    /// ``ChannelsLast``.
    public func channelsLast(rowLength: Int, appending others: [Image] = []) -> Image {
        applying(ChannelsLast(rowLength: rowLength), with: others)
    }
}

extension ChannelsLast: NetworkOperation {}

extension NetworkOperation where Self == ChannelsLast {
    /// The input nodes' elements in NHWC order, one after another, as rows of `rowLength`.
    public static func channelsLast(rowLength: Int) -> Self { ChannelsLast(rowLength: rowLength) }
}
