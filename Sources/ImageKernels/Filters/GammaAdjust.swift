import Foundation

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
        try encoder.launchPerElement(Self.kernel, [.image(encoder.input), .image(encoder.output),
                                                   .float32(gamma), .int(count)], count: count)
    }

    static let kernel = Kernel(.gammaAdjust) { invocation in
        let gamma = invocation.float(2)
        CPUParallel.forEachRange(invocation.int(3)) { range in
            let src = invocation.pointer(0, as: Float.self), dst = invocation.pointer(1, as: Float.self)
            for i in range { dst[i] = pow(max(src[i], 0), gamma) }
        }
    }
}

extension Image {
    /// Gamma correction (`uint8` images are first converted to 0...1 floats).
    public func gammaAdjusted(_ gamma: Float) -> Image {
        converted(to: .float32).applying(GammaAdjust(gamma: gamma))
    }
}
