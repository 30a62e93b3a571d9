import ImageKernels
import NeuralNetworks

/// MediaPipe's BlazeFace face detector on the neural layer: a photo letterboxed into the model's square,
/// one network run, then MediaPipe's decoding. It finds tilted and profile faces the cascades miss and
/// gives six keypoints (eyes, nose, mouth, ears) with each box.
public final class BlazeFaceDetector: FaceFinder {
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

        /// The side of the smallest face, in input pixels, that the model finds: measured with the reference
        /// interpreter on five wild faces scaled down onto black, full range scores them all above its
        /// threshold from 12 px, short range from 20 px.
        public var smallestFace: Int { self == .shortRange ? 20 : 12 }

        /// The SSD anchor layout of MediaPipe's graph for the model: feature maps by stride, anchors per cell.
        var anchorLayers: [(stride: Int, anchorsPerCell: Int)] { self == .shortRange ? [(8, 2), (16, 6)] : [(4, 1)] }
    }

    public let model: Model
    /// Detections scoring below this are dropped before suppression.
    public let threshold: Float
    /// Whether the full-range model also searches squares of a photo for faces of the minimum size that
    /// are too small to find in the whole of it, as a ``FaceFinder`` (indexing does; `cbir detect` only
    /// with `--tile`).
    public let tiles: Bool
    public let context: RenderContext
    private let network: LoadedNetwork
    private let anchors: [ImagePoint]
    /// Which of the network's outputs holds the regressors (16 a row) and which the scores.
    private let regressorOutput: Int

    /// Loads `model` from `path` (the model cache by default) onto `context`'s device; `threshold`
    /// defaults to the model's ``Model/defaultThreshold``.
    public init(
        model: Model = .fullRange, path: String? = nil, threshold: Float? = nil, tiles: Bool = true,
        context: RenderContext? = nil
    ) throws(DetectionError) {
        self.model = model
        self.tiles = tiles && model == .fullRange
        self.threshold = threshold ?? model.defaultThreshold
        do { self.context = try RenderContext.orDefault(context, for: .blazeFace) } catch { throw .render(error) }
        let path = path ?? ModelCache.path(of: model.fileName)
        let graph: TFLiteNetwork
        do { graph = try TFLiteNetwork(contentsOf: path, inputScale: 2, inputShift: -1) } catch { throw .model(error) }
        guard graph.inputWidth == model.inputSize, graph.inputHeight == model.inputSize, graph.inputChannels == 3,
            graph.network.outputs.count == 2
        else {
            throw .model(
                .unsupported(
                    path: path,
                    what: "a \(graph.inputWidth)×\(graph.inputHeight)×\(graph.inputChannels) input and "
                        + "\(graph.network.outputs.count) outputs are not \(model.rawValue)'s"))
        }
        do { network = try graph.network.loaded(on: self.context) } catch { throw .render(error) }
        anchors = BlazeFaceDecoding.anchors(inputSize: model.inputSize, layers: model.anchorLayers)
        regressorOutput = graph.outputNames.firstIndex { ["regressors", "Identity"].contains($0) } ?? 0
    }

    /// The most squares the network takes in one run; photos and their squares go through in runs of this
    /// many (eight full-range runs together take 0.65 of the time of eight one at a time, and give the same
    /// floats).
    public static let maximumBatch = 8

    /// The network's raw outputs for `input`, an RGB `uint8` image of the model's input size: each
    /// anchor's 16 regressors (one after another) and its score logit.
    public func rawOutputs(for input: Image) throws(DetectionError) -> (regressors: [Float], scores: [Float]) {
        try rawOutputs(for: [input])[0]
    }

    /// ``rawOutputs(for:)-(Image)`` of several inputs, in network runs of at most ``maximumBatch``.
    public func rawOutputs(for inputs: [Image]) throws(DetectionError) -> [(regressors: [Float], scores: [Float])] {
        var results: [(regressors: [Float], scores: [Float])] = []
        for start in stride(from: 0, to: inputs.count, by: Self.maximumBatch) {
            let run = inputs[start..<min(start + Self.maximumBatch, inputs.count)]
            let outputs: [PixelBuffer]
            do {
                let batch = Image(try PixelBuffer.batch(try context.render(Array(run))))
                outputs = try context.render(network.outputs(for: batch.converted(to: .float32)))
            } catch { throw .render(error) }
            let regressors = outputs[regressorOutput].floatValues, scores = outputs[1 - regressorOutput].floatValues
            guard regressors.count == run.count * anchors.count * 16, scores.count == run.count * anchors.count else {
                throw .invalidImage(
                    "\(model.rawValue) gave \(scores.count) scores for \(run.count) × \(anchors.count) anchors")
            }
            for index in 0..<run.count {
                results.append(
                    (
                        Array(regressors[index * anchors.count * 16..<(index + 1) * anchors.count * 16]),
                        Array(scores[index * anchors.count..<(index + 1) * anchors.count])
                    ))
            }
        }
        return results
    }

    /// The faces in `photo` (`uint8`, gray, RGB or RGBA), strongest first, in its pixels. The photo is
    /// scaled to fit the model's square and centred on black, as MediaPipe does. Where faces as small as
    /// `minimumFaceSize` pixels would fall below the model's ``Model/smallestFace`` in it, and small faces
    /// are likely (``smallFacesLikely(among:width:height:)``), the photo is also searched in overlapping
    /// squares small enough to find them (``regions(width:height:minimumFaceSize:)``: as many more network
    /// runs), and the detections of all are merged as MediaPipe merges anchors. The squares are for the
    /// full-range model: the short-range one, made for faces near the camera, sees false faces in them.
    public func faces(in photo: PixelBuffer, minimumFaceSize: Int? = nil) throws(DetectionError) -> [BlazeFaceDetection]
    {
        try faces(in: [(photo, minimumFaceSize)])[0].get()
    }

    /// ``faces(in:minimumFaceSize:)`` of several photos: the wholes of all go through the network together
    /// (in runs of ``maximumBatch``), then the squares of those that need them. Each photo's faces, or the
    /// error it met; where a run fails for all, each photo is searched alone, so that an error is its own.
    public func faces(in photos: [(photo: PixelBuffer, minimumFaceSize: Int?)])
        -> [Result<[BlazeFaceDetection], DetectionError>]
    {
        let searched = photos.map { photo, minimumFaceSize in
            Result { () throws(DetectionError) in try SearchedPhoto(photo, minimumFaceSize: minimumFaceSize, by: self) }
        }
        let valid = searched.indices.compactMap { index in
            (try? searched[index].get()).map { (index: index, photo: $0) }
        }
        do throws(DetectionError) {
            let wholes = try faces(in: valid.map { ($0.photo.rgb, $0.photo.regions[0]) })
            let squared = zip(valid, wholes).map { valid, whole in
                valid.photo.regions.count > 1
                    && smallFacesLikely(among: whole, width: valid.photo.width, height: valid.photo.height)
            }
            let squares = try faces(
                in: zip(valid, squared).filter(\.1).flatMap { valid, _ in
                    valid.photo.regions.dropFirst().map { (valid.photo.rgb, $0) }
                })
            var results = searched.map { $0.map { _ in [BlazeFaceDetection]() } }, next = 0
            for ((index, photo), (whole, isSquared)) in zip(valid, zip(wholes, squared)) {
                guard isSquared else {
                    results[index] = .success(whole)
                    continue
                }
                let count = photo.regions.count - 1
                results[index] = .success(
                    BlazeFaceDecoding.weightedSuppression(whole + squares[next..<next + count].joined(), overlap: 0.3))
                next += count
            }
            return results
        } catch {
            guard valid.count > 1 else { return searched.map { $0.flatMap { _ in .failure(error) } } }
            return photos.map { photo in Result { () throws(DetectionError) in try faces(in: [photo])[0].get() } }
        }
    }

    /// A photo as the search of several photos takes it: in RGB, with its size and the
    /// regions it searches.
    private struct SearchedPhoto {
        let rgb: Image, width: Int, height: Int, regions: [PixelRect]

        init(_ photo: PixelBuffer, minimumFaceSize: Int?, by detector: BlazeFaceDetector) throws(DetectionError) {
            let d = photo.descriptor
            guard d.elementType == .uint8, d.batch == 1, [1, 3, 4].contains(d.channels), d.width > 0, d.height > 0
            else {
                throw .invalidImage("BlazeFace reads one uint8 gray, RGB or RGBA photo, not \(d)")
            }
            (rgb, width, height) = (Image(photo.rgb()), d.width, d.height)
            regions = detector.regions(width: d.width, height: d.height, minimumFaceSize: minimumFaceSize)
        }
    }

    /// Whether a photo whose whole showed `faces` may hold faces too small for the whole to show: where it
    /// showed none, or one less than twice the smallest it can show. Faces in one photo come in like
    /// sizes, so one well above that means a portrait or a close-up, where squares find parts of the
    /// face and hands rather than faces (on index-bench's gallery: 4 false faces of 6 found, at 45 % of
    /// the indexing time).
    /// A part of a larger face found with them (``BlazeFaceDetection/isPart(of:)``) does not count.
    public func smallFacesLikely(among faces: [BlazeFaceDetection], width: Int, height: Int) -> Bool {
        let smallestInWhole = Float(model.smallestFace * max(width, height)) / Float(model.inputSize)
        let faces = Self.wholeFaces(faces)
        return faces.isEmpty || faces.contains { $0.width < 2 * smallestInWhole }
    }

    /// `faces` less those that are parts of a larger one among them (``BlazeFaceDetection/isPart(of:)``).
    public static func wholeFaces(_ faces: [BlazeFaceDetection]) -> [BlazeFaceDetection] {
        faces.filter { face in !faces.contains { face.isPart(of: $0) } }
    }

    /// The faces of `photo` at least `minimumFaceSize` pixels wide (with ``tiles``, squares are searched
    /// where the whole photo would show them too small), less parts of larger faces (``wholeFaces(_:)``),
    /// boxed as the cascades box faces (``BlazeFaceDetection/boxedAsCascades``), their eyes from the
    /// keypoints.
    public func faces(in photo: PixelBuffer, gray: PixelBuffer?, minimumFaceSize: Int) throws(DetectionError)
        -> [FaceObservation]
    {
        try faces(in: [FaceSearchRequest(photo: photo, gray: gray, minimumFaceSize: minimumFaceSize)])[0].get()
    }

    /// ``faces(in:gray:minimumFaceSize:)`` of several photos, through the network together
    /// (each photo's detections as ``faces(in:minimumFaceSize:)`` finds them, the photos' squares together).
    public func faces(in requests: [FaceSearchRequest]) -> [Result<[FaceObservation], DetectionError>] {
        let found = faces(in: requests.map { ($0.photo, tiles ? $0.minimumFaceSize : nil) })
        return zip(requests, found).map { request, found in
            let d = request.photo.descriptor
            return found.map { found in
                Self.wholeFaces(found).filter { $0.width >= Float(request.minimumFaceSize) }.map {
                    $0.boxedAsCascades.observation(clippedTo: d.width, d.height)
                }
            }
        }
    }

    /// The parts of a `width` × `height` photo that ``faces(in:minimumFaceSize:)`` searches, one network
    /// run each: the whole photo, then, where faces of `minimumFaceSize` are below the model's smallest
    /// face in it, squares in which they are not, overlapping by the smallest face the whole photo shows
    /// (so that each face it misses lies whole in some square).
    public func regions(width: Int, height: Int, minimumFaceSize: Int?) -> [PixelRect] {
        let whole = PixelRect(x: 0, y: 0, width: width, height: height)
        let size = model.inputSize, smallest = model.smallestFace, long = max(width, height)
        guard let minimum = minimumFaceSize, minimum > 0, minimum * size < smallest * long else { return [whole] }
        let side = max(minimum * size / smallest, 2), overlap = min((smallest * long + size - 1) / size, side / 2)
        func starts(_ extent: Int) -> [Int] {
            guard extent > side else { return [0] }
            let count = (extent - overlap - 1) / (side - overlap) + 1
            return (0..<count).map { (extent - side) * $0 / max(count - 1, 1) }
        }
        return [whole]
            + starts(height).flatMap { y in
                starts(width).map { x in PixelRect(x: x, y: y, width: min(side, width), height: min(side, height)) }
            }
    }

    /// The faces in each region of an RGB photo, letterboxed into the model's square, in the photo's pixels:
    /// the squares through the network together.
    private func faces(in parts: [(rgb: Image, region: PixelRect)]) throws(DetectionError) -> [[BlazeFaceDetection]] {
        let letterboxes = parts.map { Letterbox(region: $0.region, side: model.inputSize) }
        let inputs = zip(parts, letterboxes).map { part, letterbox in
            part.rgb.transformed(by: letterbox.matrix, width: model.inputSize, height: model.inputSize, border: .zero)
        }
        return zip(letterboxes, try rawOutputs(for: inputs)).map { letterbox, outputs in
            BlazeFaceDecoding.detections(
                regressors: outputs.regressors, scores: outputs.scores, anchors: anchors, inputSize: model.inputSize,
                threshold: threshold
            ).map(letterbox.inPhoto)
        }
    }

    /// A region of a photo scaled to fit the model's square and centred on black, as MediaPipe does.
    private struct Letterbox {
        let region: PixelRect, side: Float, scale: Float, padX: Float, padY: Float

        init(region: PixelRect, side: Int) {
            (self.region, self.side) = (region, Float(side))
            scale = self.side / Float(max(region.width, region.height))
            padX = (self.side - scale * Float(region.width)) / 2
            padY = (self.side - scale * Float(region.height)) / 2
        }

        /// The photo's pixels to the square's. MediaPipe's mapping, pixel corners onto pixel corners (u = scale ·
        /// x + pad): centred on pixel centres instead, boxes come out 2–4 % smaller and a few pixels off.
        var matrix: AffineMatrix {
            AffineMatrix(
                a: scale, b: 0, c: padX - scale * Float(region.x), d: 0, e: scale, f: padY - scale * Float(region.y))
        }

        /// A detection in the square (in fractions of its side), in the photo's pixels.
        func inPhoto(_ face: BlazeFaceDetection) -> BlazeFaceDetection {
            func photoPoint(_ p: ImagePoint) -> ImagePoint {
                ImagePoint(
                    x: (p.x * side - padX) / scale + Float(region.x), y: (p.y * side - padY) / scale + Float(region.y))
            }
            let corner = photoPoint(ImagePoint(x: face.x, y: face.y))
            return BlazeFaceDetection(
                x: corner.x, y: corner.y, width: face.width * side / scale, height: face.height * side / scale,
                score: face.score, keypoints: face.keypoints.map(photoPoint))
        }
    }
}
