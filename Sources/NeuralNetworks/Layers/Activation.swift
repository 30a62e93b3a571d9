import ImageKernels
import NeuralNetworksCL

/// An element-wise activation: ReLU, `max(x, 0)`; ReLU6, `min(max(x, 0), 6)` (MobileNet's and
/// EfficientNet-Lite's); or PReLU, `x ≥ 0 ? x : slope[c] · x` with a learnt slope per channel (the second
/// input).
public struct Activation: Filter {
    public enum Function: Sendable {
        case relu
        case relu6
        case prelu
    }

    public let function: Function
    public var name: String {
        switch function {
        case .relu: "ReLU"
        case .relu6: "ReLU6"
        case .prelu: "PReLU"
        }
    }

    /// The most a rectifier lets through: infinity for a ReLU, 6 for a ReLU6; nil for a PReLU.
    public var ceiling: Float? {
        switch function {
        case .relu: .infinity
        case .relu6: 6
        case .prelu: nil
        }
    }

    public init(_ function: Function) {
        self.function = function
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let inputs = try tensorInputs(inputs, count: function == .prelu ? 2 : 1)
        if function == .prelu, !inputs[1].holds(inputs[0].channels) {
            throw .invalidInput(filter: name, reason: "needs one slope per channel of \(inputs[0])")
        }
        return inputs[0]
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        if let ceiling {
            try encoder.launch(
                Self.rectifier,
                Rectifier(
                    src: .init(encoder.input), dst: .init(encoder.output), count: Int32(input.elementCount),
                    ceiling: ceiling),
                over: [input.elementCount])
        } else {
            try encoder.launch(
                Self.parametricRectifier,
                Parametric(
                    src: .init(encoder.input), dst: .init(encoder.output), slopes: .init(encoder.inputs[1]),
                    spatial: Int32(input.planePixelCount), channels: Int32(input.channels),
                    planes: Int32(input.planeCount)),
                over: [input.planePixelCount, input.planeCount])
        }
    }

    struct Rectifier: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var count: Int32
        var ceiling: Float
    }

    struct Parametric: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var slopes: KernelBuffer<Float>
        var spatial: Int32
        var channels: Int32
        var planes: Int32
    }

    static let rectifier = Kernel<Rectifier>(
        "activation_relu", in: KernelSource(name: "Activation", bytes: NeuralNetworksCL.activation)
    ) { arguments, _ in
        CPUParallel.forEachRange(Int(arguments.count)) { range in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for i in range { dst[i] = min(max(src[i], 0), arguments.ceiling) }
        }
    }

    static let parametricRectifier = Kernel<Parametric>(
        "activation_prelu", in: KernelSource(name: "Activation", bytes: NeuralNetworksCL.activation),
        schedules: .uniform([64, 1])
    ) { arguments, _ in
        let spatial = Int(arguments.spatial), channels = Int(arguments.channels)
        CPUParallel.forEachRange(Int(arguments.planes)) { planes in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for plane in planes {
                let slope = arguments.slopes.elements[plane % channels]
                for i in plane * spatial..<(plane + 1) * spatial { dst[i] = src[i] >= 0 ? src[i] : slope * src[i] }
            }
        }
    }
}

extension Image {
    /// `max(x, 0)` element-wise.
    public func rectified() -> Image {
        applying(Activation(.relu))
    }

    /// `min(max(x, 0), 6)` element-wise.
    public func rectified6() -> Image {
        applying(Activation(.relu6))
    }

    /// `x ≥ 0 ? x : slope[c] · x` with `slopes` holding one value per channel.
    public func parametricRectified(slopes: Image) -> Image {
        applying(Activation(.prelu), with: [slopes])
    }
}

extension Activation: NetworkOperation {}

extension NetworkOperation where Self == Activation {
    /// A ReLU, `max(x, 0)`.
    public static var relu: Self { Activation(.relu) }
    /// A ReLU6, `min(max(x, 0), 6)`.
    public static var relu6: Self { Activation(.relu6) }
}

/// Vectors of floats whose lanes the layers that fuse an activation clamp to 0…`ceiling` (ReLU, or ReLU6 with 6)
/// by compare and select: each width's own operations (the standard `clamped(lowerBound:upperBound:)`, like any
/// SIMD code written for every width, goes lane by lane).
protocol RectifiedLanes: SIMD where Scalar == Float {
    func rectified(ceiling: Float) -> Self
}

extension SIMD8<Float>: RectifiedLanes {
    @inline(__always) func rectified(ceiling: Float) -> SIMD8<Float> {
        let positive = replacing(with: 0, where: self .< 0)
        return positive.replacing(with: ceiling, where: positive .> ceiling)
    }
}

extension SIMD16<Float>: RectifiedLanes {
    @inline(__always) func rectified(ceiling: Float) -> SIMD16<Float> {
        let positive = replacing(with: 0, where: self .< 0)
        return positive.replacing(with: ceiling, where: positive .> ceiling)
    }
}
