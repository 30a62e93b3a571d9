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
        try encoder.launchPerPixel(Self.columns, [.image(narrow), .image(wide), .image(encoder.output),
                                                  .floats(narrowWeights), .int(narrowWeights.count / 2),
                                                  .floats(wideWeights), .int(wideWeights.count / 2),
                                                  .int(shape.width), .int(shape.height)],
                                   over: shape)
    }

    static let columns = Kernel(.dogColumns) { invocation in
        let narrowRadius = invocation.int(4), wideRadius = invocation.int(6)
        let width = invocation.int(7), height = invocation.int(8)
        CPUParallel.forEachRange(invocation.globalSize[2] * height) { rows in
            let narrow = invocation.pointer(0, as: Float.self), wide = invocation.pointer(1, as: Float.self)
            let dst = invocation.pointer(2, as: Float.self)
            let narrowWeights = invocation.pointer(3, as: Float.self), wideWeights = invocation.pointer(5, as: Float.self)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: width)
            defer { scratch.deallocate() }
            for row in rows {
                let plane = row / height, y = row % height, offset = plane * height * width
                let output = dst + row * width
                GaussianBlur.accumulateColumns(into: output, from: narrow + offset, y: y, width: width,
                                               height: height, weights: narrowWeights, radius: narrowRadius)
                GaussianBlur.accumulateColumns(into: scratch, from: wide + offset, y: y, width: width,
                                               height: height, weights: wideWeights, radius: wideRadius)
                for x in 0..<width { output[x] -= scratch[x] }
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
