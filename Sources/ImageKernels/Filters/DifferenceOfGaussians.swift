import ImageKernelsCL

/// Difference of Gaussians, narrow minus wide: G(σ1) − G(σ2), a band-pass that removes shading.
public struct DifferenceOfGaussians: Filter {
    public let sigma1: Float
    public let sigma2: Float
    public var name: String { "DoG σ\(sigma1)−σ\(sigma2)" }

    public init(sigma1: Float, sigma2: Float) {
        self.sigma1 = sigma1
        self.sigma2 = sigma2
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        try GaussianBlur.validate(sigma1, in: name)
        try GaussianBlur.validate(sigma2, in: name)
        return try singleInput(inputs, of: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let shape = encoder.output.descriptor
        let narrowWeights = GaussianBlur.weights(sigma: sigma1), wideWeights = GaussianBlur.weights(sigma: sigma2)
        let narrow = try encoder.temporaryImage(shape), wide = try encoder.temporaryImage(shape)
        try GaussianBlur.blurRows(encoder, from: encoder.input, to: narrow, weights: narrowWeights)
        try GaussianBlur.blurRows(encoder, from: encoder.input, to: wide, weights: wideWeights)
        try encoder.launch(
            Self.columns,
            ColumnArguments(
                narrow: .init(narrow), wide: .init(wide), dst: .init(encoder.output),
                narrowWeights: narrowWeights, narrowRadius: Int32(narrowWeights.count / 2),
                wideWeights: wideWeights, wideRadius: Int32(wideWeights.count / 2),
                width: Int32(shape.width), height: Int32(shape.height)),
            over: [shape.width, shape.height, shape.planeCount])
    }

    struct ColumnArguments: KernelArguments {
        var narrow: KernelBuffer<Float>
        var wide: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var narrowWeights: [Float]
        var narrowRadius: Int32
        var wideWeights: [Float]
        var wideRadius: Int32
        var width: Int32
        var height: Int32
    }

    static let columns = Kernel<ColumnArguments>(
        "dog_columns", in: KernelSource(name: "DifferenceOfGaussians", bytes: ImageKernelsCL.differenceOfGaussians),
        schedules: .perPixel
    ) { arguments, grid in
        let width = Int(arguments.width), height = Int(arguments.height)
        CPUParallel.forEachRange(grid[2] * height) { rows in
            let narrow = arguments.narrow.elements, wide = arguments.wide.elements, dst = arguments.dst.elements
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: width)
            defer { scratch.deallocate() }
            arguments.narrowWeights.withUnsafeBufferPointer { narrowWeights in
                arguments.wideWeights.withUnsafeBufferPointer { wideWeights in
                    for row in rows {
                        let plane = row / height, y = row % height, offset = plane * height * width
                        let output = dst + row * width
                        GaussianBlur.accumulateColumns(
                            into: output, from: narrow + offset, y: y, width: width, height: height,
                            weights: narrowWeights, radius: Int(arguments.narrowRadius))
                        GaussianBlur.accumulateColumns(
                            into: scratch, from: wide + offset, y: y, width: width, height: height,
                            weights: wideWeights, radius: Int(arguments.wideRadius))
                        for x in 0..<width { output[x] -= scratch[x] }
                    }
                }
            }
        }
    }
}

extension Image {
    /// G(σ1) − G(σ2) (`uint8` images are first converted to 0...1 floats).
    public func differenceOfGaussians(sigma1: Float, sigma2: Float) -> Image {
        converted(to: .float32).applying(DifferenceOfGaussians(sigma1: sigma1, sigma2: sigma2))
    }
}
