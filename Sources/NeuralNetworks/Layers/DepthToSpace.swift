import ImageKernels
import NeuralNetworksCL

/// Channels moved into space, TFLite's `DEPTH_TO_SPACE`: a tensor of `block² · C` channels becomes one of
/// `C` channels `block` times as wide and high; output channel `c` at (x, y) reads input channel
/// `((y mod block) · block + x mod block) · C + c` at (x ÷ block, y ÷ block).
public struct DepthToSpace: Filter {
    public let blockSize: Int
    public var name: String { "depth to space ×\(blockSize)" }

    public init(blockSize: Int) {
        self.blockSize = blockSize
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try tensorInputs(inputs, count: 1)[0]
        guard blockSize > 0, input.channels % (blockSize * blockSize) == 0 else {
            throw .invalidInput(
                filter: name, reason: "\(input.channels) channels do not split into blocks of \(blockSize)×\(blockSize)"
            )
        }
        return ImageDescriptor(
            width: input.width * blockSize, height: input.height * blockSize,
            channels: input.channels / (blockSize * blockSize), batch: input.batch, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, output = encoder.output.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output), channels: Int32(input.channels),
                height: Int32(input.height), width: Int32(input.width), block: Int32(blockSize),
                planes: Int32(output.planeCount)),
            over: [output.width, output.height, output.planeCount])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var channels: Int32
        var height: Int32
        var width: Int32
        var block: Int32
        var planes: Int32
    }

    static let kernel = Kernel<Arguments>(
        "depth_to_space", in: KernelSource(name: "DepthToSpace", bytes: NeuralNetworksCL.depthToSpace),
        schedules: .perPixel
    ) { arguments, _ in
        let channels = Int(arguments.channels), height = Int(arguments.height), width = Int(arguments.width)
        let block = Int(arguments.block), outChannels = channels / (block * block), outHeight = height * block,
            outWidth = width * block
        CPUParallel.forEachRange(Int(arguments.planes) * outHeight) { rows in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for row in rows {
                let plane = row / outHeight, y = row % outHeight, n = plane / outChannels, c = plane % outChannels
                for x in 0..<outWidth {
                    let source = ((y % block) * block + x % block) * outChannels + c
                    dst[row * outWidth + x] = src[((n * channels + source) * height + y / block) * width + x / block]
                }
            }
        }
    }
}

extension Image {
    /// This tensor's channels moved into `blockSize` × `blockSize` cells of space; see ``DepthToSpace``.
    public func depthToSpace(blockSize: Int) -> Image {
        applying(DepthToSpace(blockSize: blockSize))
    }
}

extension DepthToSpace: NetworkOperation {}

extension NetworkOperation where Self == DepthToSpace {
    /// Channels moved into `blockSize` × `blockSize` blocks of pixels.
    public static func depthToSpace(blockSize: Int) -> Self { DepthToSpace(blockSize: blockSize) }
}
