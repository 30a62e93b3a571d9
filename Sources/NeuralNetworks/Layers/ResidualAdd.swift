import ImageKernels
import NeuralNetworksCL

/// The sum of two tensors of one batch, a residual connection, optionally followed by a ReLU. Shapes may
/// differ as in dlib's `add_prev`: the output takes the larger of each dimension and the smaller tensor
/// reads as zero past its edges and extra channels.
public struct ResidualAdd: Filter {
    public let rectified: Bool
    public var name: String { "residual add" }

    public init(rectified: Bool = false) {
        self.rectified = rectified
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let inputs = try tensorInputs(inputs, count: 2)
        let (a, b) = (inputs[0], inputs[1])
        guard a.batch == b.batch else { throw .invalidInput(filter: name, reason: "batches differ: \(a) and \(b)") }
        return ImageDescriptor(
            width: max(a.width, b.width), height: max(a.height, b.height), channels: max(a.channels, b.channels),
            batch: a.batch, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let a = encoder.inputs[0].descriptor, b = encoder.inputs[1].descriptor, output = encoder.output.descriptor
        try encoder.launch(
            Self.kernel,
            Arguments(
                a: .init(encoder.inputs[0]), b: .init(encoder.inputs[1]), dst: .init(encoder.output),
                aChannels: Int32(a.channels), aHeight: Int32(a.height), aWidth: Int32(a.width),
                bChannels: Int32(b.channels), bHeight: Int32(b.height), bWidth: Int32(b.width),
                channels: Int32(output.channels), height: Int32(output.height),
                width: Int32(output.width), batch: Int32(output.batch), relu: rectified ? 1 : 0),
            over: [output.width, output.height, output.planeCount])
    }

    struct Arguments: KernelArguments {
        var a: KernelBuffer<Float>
        var b: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var aChannels: Int32
        var aHeight: Int32
        var aWidth: Int32
        var bChannels: Int32
        var bHeight: Int32
        var bWidth: Int32
        var channels: Int32
        var height: Int32
        var width: Int32
        var batch: Int32
        var relu: Int32
    }

    static let kernel = Kernel<Arguments>(
        "residual_add", in: KernelSource(name: "ResidualAdd", bytes: NeuralNetworksCL.residualAdd),
        schedules: .perPixel
    ) { arguments, _ in
        let channels = Int(arguments.channels), height = Int(arguments.height), width = Int(arguments.width)
        let shapeA = (Int(arguments.aChannels), Int(arguments.aHeight), Int(arguments.aWidth))
        let shapeB = (Int(arguments.bChannels), Int(arguments.bHeight), Int(arguments.bWidth))
        let relu = arguments.relu != 0
        // Inputs of the output's shape (most are): one sum a value, in blocks.
        if shapeA == (channels, height, width), shapeB == shapeA {
            let count = Int(arguments.batch) * channels * height * width, block = 4096
            CPUParallel.forEachRange((count + block - 1) / block) { blocks in
                let a = arguments.a.elements, b = arguments.b.elements, dst = arguments.dst.elements
                let range = blocks.lowerBound * block..<min(blocks.upperBound * block, count)
                if relu {
                    for i in range { dst[i] = max(a[i] + b[i], 0) }
                } else {
                    for i in range { dst[i] = a[i] + b[i] }
                }
            }
            return
        }
        // Otherwise row by row: zeros, plus each input's part of the row where it has one, so the loops vectorise.
        CPUParallel.forEachRange(Int(arguments.batch) * channels * height) { rows in
            let dst = arguments.dst.elements
            for row in rows {
                let plane = row / height, y = row % height, n = plane / channels, c = plane % channels
                let out = dst + row * width
                out.update(repeating: 0, count: width)
                func accumulate(_ t: UnsafePointer<Float>, _ shape: (channels: Int, height: Int, width: Int)) {
                    guard c < shape.channels, y < shape.height else { return }
                    let source = t + ((n * shape.channels + c) * shape.height + y) * shape.width
                    for x in 0..<shape.width { out[x] += source[x] }
                }
                accumulate(arguments.a.elements, shapeA)
                accumulate(arguments.b.elements, shapeB)
                if relu { for x in 0..<width { out[x] = max(out[x], 0) } }
            }
        }
    }
}

extension Image {
    /// `self + other` (zero-padded to the larger shape), then a ReLU when `rectified`.
    public func adding(_ other: Image, rectified: Bool = false) -> Image {
        applying(ResidualAdd(rectified: rectified), with: [other])
    }
}

/// A sum of two nodes; it takes in a ReLU after it.
extension ResidualAdd: NetworkOperation {
    public func followed(by next: any NetworkOperation) -> (any NetworkOperation)? {
        rectified || !next.isRectifier ? nil : ResidualAdd(rectified: true)
    }
}

extension NetworkOperation where Self == ResidualAdd {
    /// The sum of the two input nodes (zero-padded to the larger shape), then a ReLU when `rectified`.
    public static func add(rectified: Bool) -> Self { ResidualAdd(rectified: rectified) }
}
