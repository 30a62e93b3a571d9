import ImageKernels

/// Computes face descriptors for whole batches of aligned face crops in one pass through the
/// filter graph: resize → gamma → DoG → Tan–Triggs → LBP → block histograms.
public struct FaceDescriber: Sendable {
    public let parameters: DescriptorParameters
    public let context: RenderContext

    /// A describer on `context` (by default a new context on the device that describes fastest here,
    /// `Device.best(for:)`).
    public init(parameters: DescriptorParameters = .standard, context: RenderContext? = nil) throws(RecognitionError) {
        try parameters.validate()
        self.parameters = parameters
        do { self.context = try RenderContext.orDefault(context, for: .describing) } catch { throw .render(error) }
    }

    /// The recipe from face crops (any size; colour is reduced to luma) to block histograms.
    public func recipe(for faces: Image) -> Image {
        var image = faces.grayscale()
        if (try? image.descriptor).map({ $0.width != parameters.faceSize || $0.height != parameters.faceSize }) ?? true
        {
            image = image.resized(width: parameters.faceSize, height: parameters.faceSize, method: .area)
        }
        if let gamma = parameters.gamma { image = image.gammaAdjusted(gamma) }
        if let sigmas = parameters.sigmas, sigmas.count == 2 {
            image = image.differenceOfGaussians(sigma1: sigmas[0], sigma2: sigmas[1])
        }
        if parameters.equalizes { image = image.contrastEqualized() }
        return image.applying(parameters.lbp)
            .blockHistograms(gridColumns: parameters.gridColumns, gridRows: parameters.gridRows, bins: parameters.bins)
    }

    /// Descriptors of every face in a batch of equally sized crops.
    public func describe(_ faces: PixelBuffer) throws(RecognitionError) -> [FaceDescriptor] {
        let histograms: PixelBuffer
        do {
            histograms = try context.render(recipe(for: Image(faces)))
        } catch {
            throw .render(error)
        }
        let values = histograms.floatValues, length = parameters.length
        return try (0..<faces.descriptor.batch).map { (face) throws(RecognitionError) in
            try FaceDescriptor(parameters: parameters, histograms: Array(values[face * length..<(face + 1) * length]))
        }
    }

    /// Descriptors of crops of any sizes: crops of one size share a batch.
    public func describe(_ faces: [PixelBuffer]) throws(RecognitionError) -> [FaceDescriptor] {
        var results = [FaceDescriptor?](repeating: nil, count: faces.count)
        let groups = Dictionary(grouping: faces.indices) { index in
            var shape = faces[index].descriptor
            shape.batch = 1
            return shape
        }
        for (_, indices) in groups {
            let batch: PixelBuffer
            do { batch = try PixelBuffer.batch(indices.map { faces[$0] }) } catch { throw .render(error) }
            for (index, descriptor) in zip(indices, try describe(batch)) { results[index] = descriptor }
        }
        return results.compactMap { $0 }
    }
}
