import Foundation
import ImageKernelsCL

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
        try encoder.launch(
            Self.columns,
            PassArguments(
                src: .init(rows), dst: .init(encoder.output), weights: weights,
                radius: Int32(weights.count / 2), width: Int32(shape.width),
                height: Int32(shape.height)),
            over: [shape.width, shape.height, shape.planeCount])
    }

    /// The row pass alone, shared with ``DifferenceOfGaussians``.
    static func blurRows(
        _ encoder: KernelEncoder, from source: DeviceImage, to target: DeviceImage,
        weights: [Float]
    ) throws(RenderError) {
        let shape = source.descriptor
        try encoder.launch(
            rows,
            PassArguments(
                src: .init(source), dst: .init(target), weights: weights,
                radius: Int32(weights.count / 2), width: Int32(shape.width),
                height: Int32(shape.height)),
            over: [shape.width, shape.height, shape.planeCount])
    }

    static let source = KernelSource(name: "GaussianBlur", bytes: ImageKernelsCL.gaussianBlur)

    /// The arguments of either pass.
    struct PassArguments: KernelArguments {
        var src: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var weights: [Float]
        var radius: Int32
        var width: Int32
        var height: Int32
    }

    static let rows = Kernel<PassArguments>("gaussian_rows", in: source, schedules: .perPixel) { arguments, grid in
        let radius = Int(arguments.radius), width = Int(arguments.width)
        CPUParallel.forEachRange(grid[2] * Int(arguments.height)) { rows in
            let src = arguments.src.elements, dst = arguments.dst.elements
            arguments.weights.withUnsafeBufferPointer { weights in
                for row in rows {
                    accumulateRow(
                        into: dst + row * width, from: src + row * width, width: width,
                        weights: weights, radius: radius)
                }
            }
        }
    }

    /// One output row of a row pass: Σ_k w_k · row[clamp(x + k)], in the kernel's order of taps; the
    /// interior, where no tap needs clamping, runs tap by tap along the row so that it vectorises.
    @inline(__always)
    static func accumulateRow(
        into output: UnsafeMutablePointer<Float>, from input: UnsafePointer<Float>,
        width: Int, weights: UnsafeBufferPointer<Float>, radius: Int
    ) {
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

    static let columns = Kernel<PassArguments>("gaussian_columns", in: source, schedules: .perPixel) {
        arguments, grid in
        let radius = Int(arguments.radius), width = Int(arguments.width), height = Int(arguments.height)
        CPUParallel.forEachRange(grid[2] * height) { rows in
            let src = arguments.src.elements, dst = arguments.dst.elements
            arguments.weights.withUnsafeBufferPointer { weights in
                for row in rows {
                    let plane = row / height, y = row % height
                    accumulateColumns(
                        into: dst + row * width, from: src + plane * height * width,
                        y: y, width: width, height: height, weights: weights, radius: radius)
                }
            }
        }
    }

    /// One output row of a column pass: Σ_k w_k · row(clamp(y + k)), vectorised along the row.
    @inline(__always)
    static func accumulateColumns(
        into output: UnsafeMutablePointer<Float>, from plane: UnsafePointer<Float>,
        y: Int, width: Int, height: Int,
        weights: UnsafeBufferPointer<Float>, radius: Int
    ) {
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
