import Foundation
import ImageKernelsCL

/// Gamma correction max(v, 0)^γ, γ > 0, of a float image (values in 0...1 stay in 0...1).
public struct GammaAdjust: Filter {
    public let gamma: Float
    public var name: String { "gamma \(gamma)" }

    public init(gamma: Float) {
        self.gamma = gamma
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard gamma.isFinite, gamma > 0 else {
            throw .invalidInput(filter: name, reason: "gamma must be a finite number > 0")
        }
        return try singleInput(inputs, of: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let count = encoder.output.descriptor.elementCount
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), dst: .init(encoder.output), gamma: gamma,
                count: Int32(count)), over: [count])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var gamma: Float
        var count: Int32
    }

    static let kernel = Kernel<Arguments>(
        "gamma_adjust", in: KernelSource(name: "GammaAdjust", bytes: ImageKernelsCL.gammaAdjust)
    ) { arguments, _ in
        CPUParallel.forEachRange(Int(arguments.count)) { range in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for i in range { dst[i] = pow(max(src[i], 0), arguments.gamma) }
        }
    }
}

extension Image {
    /// Gamma correction (`uint8` images are first converted to 0...1 floats).
    public func gammaAdjusted(_ gamma: Float) -> Image {
        converted(to: .float32).applying(GammaAdjust(gamma: gamma))
    }
}
