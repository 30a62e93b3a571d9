import FaceDetection
import ImageKernels
import NeuralNetworks

/// dlib's face ResNet (`dlib_face_recognition_resnet_model_v1.dat`) on the framework's kernels: faces of a
/// photo, or batches of 150×150 RGB face chips (`FaceChip`), to 128-d embeddings, in which faces of one
/// person lie closer than ``threshold`` (Euclidean). Faces are placed with dlib's 5-point landmarks, found
/// twice: in the box given, then in the box dlib's detector would most likely have drawn around the first
/// ones (`LandmarkPredictor.box(fitting:)`), which corrects boxes from other detectors.
public final class FaceEmbedder: Sendable {
    /// The model's file name in the model cache.
    public static let modelFile = "dlib_face_recognition_resnet_model_v1.dat"
    /// Values per embedding.
    public static let length = 128
    /// The most chips the network takes in one run: larger batches hold more activations and ran no faster
    /// (nbnn-bench's embedding speed); a batch of any size goes through in runs of at most this many.
    public static let maximumBatch = 16

    public let context: RenderContext
    /// The chip size the network takes (150).
    public let chipSize: Int
    /// dlib's same-person threshold on the Euclidean distance (0.6).
    public let threshold: Float
    /// Places the landmarks that chips are cut by.
    public let landmarks: LandmarkPredictor
    private let network: LoadedNetwork

    /// Loads the models from `modelPath` and `landmarkModelPath` (default: the model cache) onto `context`
    /// (default: a new context on the device that embeds fastest here, `Device.best(for:)`); the network's
    /// weights stay on that device.
    public init(
        modelPath: String = ModelCache.path(of: FaceEmbedder.modelFile),
        landmarkModelPath: String = ModelCache.path(of: LandmarkPredictor.modelFile),
        context: RenderContext? = nil
    ) throws(RecognitionError) {
        do { landmarks = try LandmarkPredictor(modelPath: landmarkModelPath) } catch { throw .model(error) }
        let model: DlibNetwork
        do { model = try DlibNetwork(contentsOf: modelPath, setup: ModelCache.setupCommand) } catch {
            throw .model(error)
        }
        guard model.inputWidth == model.inputHeight else {
            throw .model(
                .malformed(
                    path: modelPath, offset: 0, reason: "input \(model.inputWidth)×\(model.inputHeight) is not square"))
        }
        do {
            self.context = try RenderContext.orDefault(context, for: .embedding)
            network = try model.network.fused().loaded(on: self.context)
        } catch {
            throw .render(error)
        }
        chipSize = model.inputWidth
        threshold = model.distanceThreshold
    }

    /// The recipe from a batch of uint8 RGB chips (3 channels, ``chipSize`` square) to embeddings (128
    /// channels of 1×1 per chip).
    public func recipe(for chips: Image) -> Image {
        network.apply(to: chips.converted(to: .float32))
    }

    /// The embeddings of the faces in `boxes` (boxes as the landmark model expects them, see
    /// `FaceObservation.landmarkBox`) of a uint8 photo (gray, RGB or RGBA), all chips in one batch.
    public func embeddings(ofFacesIn boxes: [PixelRect], of photo: PixelBuffer) throws(RecognitionError) -> [[Float]] {
        try embeddings(ofFaces: [(photo, boxes)])
    }

    /// The embeddings of the faces in several photos (each one uint8 image), in order, all chips in one batch.
    public func embeddings(ofFaces photos: [(photo: PixelBuffer, boxes: [PixelRect])]) throws(RecognitionError)
        -> [[Float]]
    {
        var chips: [Image] = []
        for (photo, boxes) in photos where !boxes.isEmpty {
            guard photo.descriptor.elementType == .uint8, photo.descriptor.batch == 1 else {
                throw .invalidParameters("photos must be one uint8 image each, got \(photo.descriptor)")
            }
            let rgb = photo.rgb(), image = Image(rgb)
            for box in boxes {
                // Placed twice: in the given box, then in the box the model's mean shape fits them to.
                let first = landmarks.landmarks(in: rgb, box: box)
                chips.append(
                    FaceChip(landmarks: landmarks.landmarks(in: rgb, box: landmarks.box(fitting: first)))
                        .recipe(from: image, width: rgb.descriptor.width, height: rgb.descriptor.height))
            }
        }
        guard !chips.isEmpty else { return [] }
        let batch: PixelBuffer
        do { batch = try PixelBuffer.batch(try context.render(chips)) } catch { throw .render(error) }
        return try embeddings(of: batch)
    }

    /// One embedding per chip of the batch, in network runs of at most ``maximumBatch`` chips.
    public func embeddings(of chips: PixelBuffer) throws(RecognitionError) -> [[Float]] {
        let shape = chips.descriptor
        guard shape.channels == 3, shape.width == chipSize, shape.height == chipSize, shape.elementType == .uint8 else {
            throw .invalidParameters("face chips must be \(chipSize)×\(chipSize) uint8 RGB, got \(shape)")
        }
        var embeddings: [[Float]] = []
        for start in stride(from: 0, to: shape.batch, by: Self.maximumBatch) {
            let run = chips.images(start..<min(start + Self.maximumBatch, shape.batch))
            let values: [Float]
            do { values = try context.render(recipe(for: Image(run))).floatValues } catch { throw .render(error) }
            embeddings += (0..<run.descriptor.batch).map { Array(values[$0 * Self.length..<($0 + 1) * Self.length]) }
        }
        return embeddings
    }
}
