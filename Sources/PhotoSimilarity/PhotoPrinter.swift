import ImageKernels
import NeuralNetworks

/// Whole-photo prints, as Apple's Vision makes feature prints: EfficientNet-Lite0's pooled features
/// (ImageNet weights, `EfficientNetLite`), L2-normalised, so that photos of one object or scene lie close
/// by cosine distance. A photo is read as the weights were trained: its shorter side resized to
/// ``resizedSide`` by area averaging, the centre ``inputSize`` square cropped.
public final class PhotoPrinter: Sendable {
    /// The model's file name in the model cache.
    public static let modelFile = "efficientnet-lite0-57934424.pth"
    /// Values per print.
    public static let length = EfficientNetLite.featureCount
    /// The most photos the network takes in one run; a batch of any size goes through in runs of this many.
    /// Larger runs' activations outgrow the caches: index-bench printed 1.1 times as fast in runs of 4 as of 16.
    public static let maximumBatch = 4

    public let context: RenderContext
    /// The model's file.
    public let modelPath: String
    /// The side of the square the network reads (224).
    public let inputSize: Int
    /// The shorter side a photo is resized to before its centre is cropped (256).
    public let resizedSide: Int
    private let network: LoadedNetwork

    /// Loads the model from `modelPath` (default: the model cache) onto `context` (default: a new context on
    /// the device that prints fastest here, `Device.best(for:)`); its weights stay on that device.
    public init(
        modelPath: String = ModelCache.path(of: PhotoPrinter.modelFile), inputSize: Int = EfficientNetLite.trainedSize,
        resizedSide: Int = 256, context: RenderContext? = nil
    ) throws(PhotoError) {
        guard resizedSide >= inputSize else {
            throw .invalidInput("the resized side \(resizedSide) is smaller than the input \(inputSize)")
        }
        let model: EfficientNetLite
        do { model = try EfficientNetLite(contentsOf: modelPath, inputSize: inputSize) } catch { throw .model(error) }
        do {
            self.context = try RenderContext.orDefault(context, for: .photoPrinting)
            network = try model.network.fused().loaded(on: self.context)
        } catch {
            throw .render(error)
        }
        self.modelPath = modelPath
        self.inputSize = inputSize
        self.resizedSide = resizedSide
    }

    /// The recipe of the network's input for a uint8 photo (gray, RGB or RGBA): RGB, its shorter side
    /// resized to ``resizedSide``, the centre ``inputSize`` square.
    public func input(for photo: PixelBuffer) -> Image {
        let rgb = photo.rgb(), width = rgb.descriptor.width, height = rgb.descriptor.height
        let scale = Double(resizedSide) / Double(min(width, height))
        let resizedWidth = max(resizedSide, Int((Double(width) * scale).rounded()))
        let resizedHeight = max(resizedSide, Int((Double(height) * scale).rounded()))
        return Image(rgb).resized(
            width: resizedWidth, height: resizedHeight, method: .area,
            keeping: PixelRect(
                x: (resizedWidth - inputSize) / 2, y: (resizedHeight - inputSize) / 2, width: inputSize,
                height: inputSize))
    }

    /// One print per photo (each one uint8 image), in order, the photos' inputs rendered in one batch.
    public func prints(of photos: [PixelBuffer]) throws(PhotoError) -> [[Float]] {
        try outputs(for: photos, classes: false).map(\.print)
    }

    /// Each photo's print and its 1000 ImageNet logits (the classifier's scores, for checking the weights).
    public func printsAndLogits(of photos: [PixelBuffer]) throws(PhotoError) -> [(print: [Float], logits: [Float])] {
        try outputs(for: photos, classes: true)
    }

    private func outputs(for photos: [PixelBuffer], classes: Bool) throws(PhotoError)
        -> [(print: [Float], logits: [Float])]
    {
        for photo in photos where photo.descriptor.elementType != .uint8 || photo.descriptor.batch != 1 {
            throw .invalidInput("photos must be one uint8 image each, got \(photo.descriptor)")
        }
        guard !photos.isEmpty else { return [] }
        var results: [(print: [Float], logits: [Float])] = []
        for start in stride(from: 0, to: photos.count, by: Self.maximumBatch) {
            let run = photos[start..<min(start + Self.maximumBatch, photos.count)]
            let rendered: [PixelBuffer]
            do {
                let inputs = try PixelBuffer.batch(try context.render(run.map(input(for:))))
                let outputs = network.outputs(for: Image(inputs).converted(to: .float32))
                rendered = try context.render([outputs[0].l2Normalized()] + (classes ? [outputs[1]] : []))
            } catch {
                throw .render(error)
            }
            let prints = rendered[0].floatValues, logits = classes ? rendered[1].floatValues : []
            let classCount = EfficientNetLite.imageNetClasses
            try requireUsable(prints)
            for n in 0..<run.count {
                results.append(
                    (
                        Array(prints[n * Self.length..<(n + 1) * Self.length]),
                        classes ? Array(logits[n * classCount..<(n + 1) * classCount]) : []
                    ))
            }
        }
        return results
    }

    /// Refuses prints that are not unit vectors of finite numbers: a sound model's L2-normalised features of
    /// any photo are; NaN, infinite or zero ones come of weights that overflow or are all zero.
    private func requireUsable(_ prints: [Float]) throws(PhotoError) {
        for start in stride(from: 0, to: prints.count, by: Self.length) {
            let print = prints[start..<start + Self.length]
            let norm = print.reduce(0) { $0 + $1 * $1 }
            guard norm.isFinite, abs(norm - 1) < 0.01 else {
                throw .unusableModel(
                    "\(modelPath): the model prints a photo as \(norm.isNaN ? "NaN" : "a vector of length² \(norm)"), "
                        + "not a direction: its weights are no use "
                        + "(run `bash scripts/setup.sh` to fetch the file again)"
                )
            }
        }
    }
}
