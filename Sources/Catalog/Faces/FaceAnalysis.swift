import FaceDetection
import FaceRecognition
import Foundation
import GRDB
import ImageCodecs
import ImageKernels

/// The faces of photos: finds them, aligns and describes them in one batch on the device (LBP descriptors,
/// and dlib's embeddings from 5-point face chips), and stores each face with its box, eyes, descriptor,
/// embedding and a thumbnail in the catalog's `faces` table. Built (its models loaded) by what indexes
/// or probes photos; the catalog has the faces' tables without it.
public struct FaceAnalysis: PhotoAnalysis {
    /// Finds the faces: `CascadeFaceFinder` or BlazeFace, by the `DetectorChoice` asked for.
    public let finder: any FaceFinder
    public let describer: FaceDescriber
    /// Makes the faces' embeddings; nil indexes LBP descriptors alone.
    public let embedder: FaceEmbedder?
    /// Smallest face searched, in the file's own pixels, or an eighth of the photo's short side where that
    /// is smaller. Smaller faces are too small to recognise (descriptors are made of 128-pixel crops), and
    /// searching them would double the detection time of a 2-megapixel photo.
    public let minimumFaceSize: Int
    /// How much of its side each face box grows by before it is cut out (0: the box itself).
    public let margin: Float

    public var name: String { "faces" }

    /// Which detector finds the faces.
    public let detector: DetectorChoice

    public var version: String {
        """
        faces by \(detector) from \(minimumFaceSize) px, margin \(margin); LBP \(describer.parameters); \
        embeddings \(embedder == nil ? "none" : FaceEmbedder.modelFile)
        """
    }

    /// The statements on the faces' tables.
    private let store = FaceStore()
    /// The context every stage renders on, when one was given; nil when each stage renders on the device
    /// that runs its kind of work fastest here (`Device.best(for:)`).
    public let context: RenderContext?

    /// An analysis on `context`, or by default each stage (detection, description, embedding) on a new
    /// context on the device that runs it fastest here, finding faces with `detector`. Faces are cut out as
    /// the detector boxes them (`margin` 0), the crop the reference system's 8×8 weight map was made for.
    /// With `embeddings`, the models come from the model cache (a missing model is an error naming the
    /// setup command).
    public init(
        context: RenderContext? = nil, detector: DetectorChoice = .default,
        parameters: DescriptorParameters = .standard,
        minimumFaceSize: Int = 80, margin: Float = 0, embeddings: Bool = true
    ) throws(CatalogError) {
        do {
            finder = try detector.finder(context: context)
            describer = try FaceDescriber(parameters: parameters, context: context)
            embedder = embeddings ? try FaceEmbedder(context: context) : nil
        } catch { throw .processing("cannot set up face indexing: \(error)") }
        self.context = context
        self.detector = detector
        self.minimumFaceSize = minimumFaceSize
        self.margin = margin
    }

    /// A photo's faces, strongest first, in the file's pixels, with their descriptors and thumbnails.
    public func analyze(_ photo: Photo) throws -> [FaceRecord] {
        try analyze([photo])[0].get()
    }

    /// Each photo's faces: found in all of them together (a detector that runs a network runs the photos as one
    /// batch), then the faces of all described in one render and embedded in one batch (a batch runs a network
    /// faster a photo or face than one at a time). Where that shared step fails, each photo is tried alone, so the
    /// failure is the photo's own.
    public func analyze(_ photos: [Photo]) -> [Result<[FaceRecord], any Error>] {
        let found = faces(in: photos)
        do {
            return try records(of: photos, found: found)
        } catch {
            guard photos.count > 1 else { return [.failure(error)] }
            return zip(photos, found).map { photo, found in Result { try records(of: [photo], found: [found])[0].get() }
            }
        }
    }

    /// The records of faces found in photos (their boxes and aligned crops, or the error a photo met):
    /// descriptors, embeddings and thumbnails, every face of every photo in one batch.
    private func records(of photos: [Photo], found: [Result<([FaceObservation], PixelBuffer), any Error>]) throws
        -> [Result<[FaceRecord], any Error>]
    {
        let detected = found.enumerated().compactMap { index, result in
            (try? result.get()).flatMap { faces, crops in
                faces.isEmpty ? nil : (index: index, faces: faces, crops: crops)
            }
        }
        var results = found.map { result in result.map { _ in [FaceRecord]() } }
        guard !detected.isEmpty else { return results }
        let descriptors = try describer.describe(try PixelBuffer.batch(detected.map(\.crops)))
        let embeddings = try embedder?.embeddings(
            ofFaces: detected.map { (photos[$0.index].pixels, $0.faces.map(\.landmarkBox)) })
        var first = 0
        for (index, faces, crops) in detected {
            results[index] = .success(
                try faces.indices.map { face in
                    try record(
                        of: faces[face], in: photos[index], descriptor: descriptors[first + face],
                        embedding: embeddings?[first + face], thumbnail: crops.images(face..<face + 1))
                })
            first += faces.count
        }
        return results
    }

    /// One face's record, in the file's pixels.
    private func record(
        of face: FaceObservation, in photo: Photo, descriptor: FaceDescriptor, embedding: [Float]?,
        thumbnail: PixelBuffer
    ) throws -> FaceRecord {
        let stored = try FaceRecord.encode(descriptor)
        func scaled(_ value: Int) -> Int { Int((Double(value) * photo.scale).rounded()) }
        return FaceRecord(
            id: nil, imageID: 0, x: scaled(face.rect.x), y: scaled(face.rect.y), width: scaled(face.rect.width),
            height: scaled(face.rect.height), angle: Double(face.angle),
            leftEyeX: face.eyes.map { Double($0.left.x) * photo.scale },
            leftEyeY: face.eyes.map { Double($0.left.y) * photo.scale },
            rightEyeX: face.eyes.map { Double($0.right.x) * photo.scale },
            rightEyeY: face.eyes.map { Double($0.right.y) * photo.scale },
            neighbours: face.neighbours, parameters: stored.parameters, descriptor: stored.descriptor,
            thumbnail: Data(try ImageEncoder.jpeg(thumbnail, quality: 85)), embedding: embedding?.littleEndianBytes)
    }

    /// Whether some face of the image lacks an embedding (databases indexed before embeddings) that this
    /// analysis, with an embedder, can add.
    public func isIncomplete(image: Int64, _ connection: any StoreConnection) throws -> Bool {
        try embedder != nil && store.lacksEmbeddings(image: image, connection)
    }

    /// The write that gives the image's faces their missing embeddings, made from its photo.
    public func completion(of image: Int64, photo: Photo, in catalog: Catalog) throws
        -> @Sendable (any StoreConnection) throws -> Void
    {
        guard let embedder else { return { _ in } }
        let faces = try catalog.reading { [store] connection in try store.faces(ofImage: image, connection) }.filter {
            $0.embedding == nil
        }
        let boxes = faces.map { face in
            func scaled(_ value: Int) -> Int { Int((Double(value) / photo.scale).rounded()) }
            let rect = PixelRect(
                x: scaled(face.x), y: scaled(face.y), width: scaled(face.width), height: scaled(face.height))
            return FaceObservation(rect: rect, eyes: nil, neighbours: face.neighbours).landmarkBox
        }
        let embeddings = zip(faces.compactMap(\.id), try embedder.embeddings(ofFacesIn: boxes, of: photo.pixels)).map {
            ($0, $1)
        }
        return { [store] connection in try store.setEmbeddings(embeddings, connection) }
    }

    /// The faces of a photo, in its decoded pixels, and their aligned gray crops.
    public func faces(in photo: Photo) throws -> ([FaceObservation], PixelBuffer) {
        try faces(in: [photo])[0].get()
    }

    /// The faces of several photos, as ``faces(in:)`` finds one's, found together.
    private func faces(in photos: [Photo]) -> [Result<([FaceObservation], PixelBuffer), any Error>] {
        let requests = photos.map { photo in
            let d = photo.gray.descriptor, shortSide = Double(min(d.width, d.height)) * photo.scale
            let smallest = max(
                1, Int((FaceSize.smallest(minimum: minimumFaceSize, shortSide: shortSide) / photo.scale).rounded()))
            return FaceSearchRequest(photo: photo.pixels, gray: photo.gray, minimumFaceSize: smallest)
        }
        return zip(photos, finder.faces(in: requests)).map { photo, found in
            Result {
                let observations = try found.get()
                guard !observations.isEmpty else { return ([], photo.gray) }
                return (
                    observations,
                    try finder.alignedFaces(
                        observations, in: photo.gray, size: describer.parameters.faceSize, margin: margin)
                )
            }
        }
    }

    public func write(_ analysis: [FaceRecord], image: Int64, to connection: any StoreConnection) throws {
        try store.insert(analysis, image: image, connection)
    }
}
