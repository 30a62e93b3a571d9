import ImageKernels
import NeuralNetworks

/// MediaPipe's BlazeFace face detector on the neural layer: a photo letterboxed into the model's square,
/// one network run, then MediaPipe's decoding. It finds tilted and profile faces the cascades miss and
/// gives six keypoints (eyes, nose, mouth, ears) with each box.
public final class BlazeFaceDetector: Sendable {
    /// MediaPipe's two face detection models (`scripts/setup.sh` fetches both from the mediapipe wheel).
    public enum Model: String, Sendable, CaseIterable {
        /// 128 × 128, for faces near the camera (selfies, portraits): 896 anchors.
        case shortRange = "blazeface-short"
        /// 192 × 192, for faces farther away and groups: 2,304 anchors.
        case fullRange = "blazeface"

        public var fileName: String {
            switch self {
            case .shortRange: "face_detection_short_range.tflite"
            case .fullRange: "face_detection_full_range_sparse.tflite"
            }
        }

        /// The side of the model's input square.
        public var inputSize: Int { self == .shortRange ? 128 : 192 }

        /// The score below which MediaPipe's graph for the model drops detections before suppression.
        public var defaultThreshold: Float { self == .shortRange ? 0.5 : 0.6 }

        /// The SSD anchor layout of MediaPipe's graph for the model: feature maps by stride, anchors per cell.
        var anchorLayers: [(stride: Int, anchorsPerCell: Int)] { self == .shortRange ? [(8, 2), (16, 6)] : [(4, 1)] }
    }

    public let model: Model
    /// Detections scoring below this are dropped before suppression.
    public let threshold: Float
    public let context: RenderContext
    private let network: LoadedNetwork
    private let anchors: [ImagePoint]
    /// Which of the network's outputs holds the regressors (16 a row) and which the scores.
    private let regressorOutput: Int

    /// Loads `model` from `path` (the model cache by default) onto `context`'s device; `threshold`
    /// defaults to the model's ``Model/defaultThreshold``.
    public init(model: Model = .fullRange, path: String? = nil, threshold: Float? = nil, context: RenderContext? = nil) throws(DetectionError) {
        self.model = model
        self.threshold = threshold ?? model.defaultThreshold
        do { self.context = try RenderContext.orDefault(context) } catch { throw .render(error) }
        let path = path ?? ModelCache.path(of: model.fileName)
        let graph: TFLiteNetwork
        do { graph = try TFLiteNetwork(contentsOf: path, inputScale: 2, inputShift: -1) } catch { throw .model(error) }
        guard graph.inputWidth == model.inputSize, graph.inputHeight == model.inputSize, graph.inputChannels == 3,
              graph.network.outputs.count == 2 else {
            throw .model(.unsupported(path: path, what: "a \(graph.inputWidth)×\(graph.inputHeight)×\(graph.inputChannels) input and "
                                      + "\(graph.network.outputs.count) outputs are not \(model.rawValue)'s"))
        }
        do { network = try graph.network.loaded(on: self.context) } catch { throw .render(error) }
        anchors = BlazeFaceDecoding.anchors(inputSize: model.inputSize, layers: model.anchorLayers)
        regressorOutput = graph.outputNames.firstIndex { ["regressors", "Identity"].contains($0) } ?? 0
    }

    /// The network's raw outputs for `input`, an RGB `uint8` image of the model's input size: each
    /// anchor's 16 regressors (one after another) and its score logit.
    public func rawOutputs(for input: Image) throws(DetectionError) -> (regressors: [Float], scores: [Float]) {
        let outputs: [PixelBuffer]
        do { outputs = try context.render(network.outputs(for: input.converted(to: .float32))) } catch { throw .render(error) }
        let regressors = outputs[regressorOutput].floatValues, scores = outputs[1 - regressorOutput].floatValues
        guard regressors.count == anchors.count * 16, scores.count == anchors.count else {
            throw .invalidImage("\(model.rawValue) gave \(scores.count) scores for \(anchors.count) anchors")
        }
        return (regressors, scores)
    }

    /// The faces in `photo` (`uint8`, gray, RGB or RGBA), strongest first, in its pixels. The photo is
    /// scaled to fit the model's square and centred on black, as MediaPipe does.
    public func faces(in photo: PixelBuffer) throws(DetectionError) -> [BlazeFaceDetection] {
        let d = photo.descriptor
        guard d.elementType == .uint8, d.batch == 1, [1, 3, 4].contains(d.channels), d.width > 0, d.height > 0 else {
            throw .invalidImage("BlazeFace reads one uint8 gray, RGB or RGBA photo, not \(d)")
        }
        let size = Float(model.inputSize), scale = size / Float(max(d.width, d.height))
        let padX = (size - scale * Float(d.width)) / 2, padY = (size - scale * Float(d.height)) / 2
        // MediaPipe's mapping, pixel corners onto pixel corners (u = scale · x + pad): centred on pixel
        // centres instead, boxes come out 2–4 % smaller and a few pixels off.
        let letterbox = AffineMatrix(a: scale, b: 0, c: padX, d: 0, e: scale, f: padY)
        let input = Image(photo.rgb()).transformed(by: letterbox, width: model.inputSize, height: model.inputSize, border: .zero)
        let (regressors, scores) = try rawOutputs(for: input)
        return BlazeFaceDecoding.detections(regressors: regressors, scores: scores, anchors: anchors, inputSize: model.inputSize,
                                            threshold: threshold).map { face in
            func photoPoint(_ p: ImagePoint) -> ImagePoint { ImagePoint(x: (p.x * size - padX) / scale, y: (p.y * size - padY) / scale) }
            let corner = photoPoint(ImagePoint(x: face.x, y: face.y))
            return BlazeFaceDetection(x: corner.x, y: corner.y, width: face.width * size / scale, height: face.height * size / scale,
                                      score: face.score, keypoints: face.keypoints.map(photoPoint))
        }
    }
}
