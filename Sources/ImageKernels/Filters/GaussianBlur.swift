import Foundation

/// Separable Gaussian blur of a float image: radius ⌈3σ⌉, normalised taps, replicated borders.
public struct GaussianBlur: Filter {
    public let sigma: Float
    public var name: String { "gaussian σ\(sigma)" }

    public init(sigma: Float) {
        self.sigma = sigma
    }

    /// The normalised taps for σ, from -⌈3σ⌉ to ⌈3σ⌉.
    public static func weights(sigma: Float) -> [Float] {
        let radius = Int((3 * sigma).rounded(.up))
        let raw = (-radius...radius).map { k in exp(-Float(k * k) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { $0 / total }
    }

    static func validate(_ sigma: Float, in filter: String) throws(RenderError) {
        guard sigma.isFinite, sigma > 0, sigma <= 100 else {
            throw .invalidInput(filter: filter, reason: "σ must be in (0, 100], got \(sigma)")
        }
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try Self.validate(sigma, in: name)
        return try singleInput(inputs, of: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let shape = encoder.output.descriptor
        let weights = Self.weights(sigma: sigma)
        let rows = try encoder.temporaryImage(shape)
        try Self.blurRows(encoder, from: encoder.input, to: rows, weights: weights)
        try encoder.launchPerPixel(Self.columns, [.image(rows), .image(encoder.output), .floats(weights),
                                                  .int(weights.count / 2), .int(shape.width), .int(shape.height)],
                                   over: shape)
    }

    /// The row pass alone, shared with ``DifferenceOfGaussians``.
    static func blurRows(_ encoder: KernelEncoder, from source: DeviceImage, to target: DeviceImage,
                         weights: [Float]) throws(RenderError) {
        let shape = source.descriptor
        try encoder.launchPerPixel(rows, [.image(source), .image(target), .floats(weights),
                                          .int(weights.count / 2), .int(shape.width), .int(shape.height)],
                                   over: shape)
    }

    static let rows = Kernel(.gaussianRows) { invocation in
        let radius = invocation.int(3), width = invocation.int(4), height = invocation.int(5)
        CPUParallel.forEachRange(invocation.globalSize[2] * height) { rows in
            let src = invocation.pointer(0, as: Float.self), dst = invocation.pointer(1, as: Float.self)
            let weights = invocation.pointer(2, as: Float.self)
            for row in rows {
                accumulateRow(into: dst + row * width, from: src + row * width, width: width,
                              weights: weights, radius: radius)
            }
        }
    }

    /// One output row of a row pass: Σ_k w_k · row[clamp(x + k)], in the kernel's order of taps; the
    /// interior, where no tap needs clamping, runs tap by tap along the row so that it vectorises.
    @inline(__always)
    static func accumulateRow(into output: UnsafeMutablePointer<Float>, from input: UnsafeMutablePointer<Float>,
                              width: Int, weights: UnsafeMutablePointer<Float>, radius: Int) {
        let interior = radius..<max(radius, width - radius)
        output.update(repeating: 0, count: width)
        for k in -radius...radius {
            let weight = weights[k + radius], shifted = input + k
            for x in interior { output[x] += weight * shifted[x] }
        }
        for x in 0..<width where !interior.contains(x) {
            var sum: Float = 0
            for k in -radius...radius { sum += weights[k + radius] * input[min(max(x + k, 0), width - 1)] }
            output[x] = sum
        }
    }

    static let columns = Kernel(.gaussianColumns) { invocation in
        let radius = invocation.int(3), width = invocation.int(4), height = invocation.int(5)
        CPUParallel.forEachRange(invocation.globalSize[2] * height) { rows in
            let src = invocation.pointer(0, as: Float.self), dst = invocation.pointer(1, as: Float.self)
            let weights = invocation.pointer(2, as: Float.self)
            for row in rows {
                let plane = row / height, y = row % height
                accumulateColumns(into: dst + row * width, from: src + plane * height * width,
                                  y: y, width: width, height: height, weights: weights, radius: radius)
            }
        }
    }

    /// One output row of a column pass: Σ_k w_k · row(clamp(y + k)), vectorised along the row.
    @inline(__always)
    static func accumulateColumns(into output: UnsafeMutablePointer<Float>, from plane: UnsafeMutablePointer<Float>,
                                  y: Int, width: Int, height: Int,
                                  weights: UnsafeMutablePointer<Float>, radius: Int) {
        output.update(repeating: 0, count: width)
        for k in -radius...radius {
            let weight = weights[k + radius]
            let source = plane + min(max(y + k, 0), height - 1) * width
            for x in 0..<width { output[x] += weight * source[x] }
        }
    }
}

extension Image {
    /// Gaussian blur (`uint8` images are first converted to 0...1 floats).
    public func gaussianBlurred(sigma: Float) -> Image {
        converted(to: .float32).applying(GaussianBlur(sigma: sigma))
    }
}
