import Foundation
import ImageKernels

/// Finds faces in photos and cuts them out level and at one size, ready to describe: faces with a
/// frontal-face cascade (small photos searched at twice their size, as dlib does; a second cascade tried
/// where the first finds nothing), then eyes with an eye cascade in the upper part of each face.
public final class CascadeFaceFinder: FaceFinder {
    public let faceDetector: CascadeDetector
    /// Searched where `faceDetector` finds no face: it finds faces the Haar model misses (index-bench's
    /// detector table in Benchmarks/RESULTS.md).
    public let fallbackDetector: CascadeDetector?
    public let eyeDetector: CascadeDetector
    public let options: DetectionOptions

    /// Photos whose shorter side is below this are searched at twice their size, so that faces smaller
    /// than the cascades' reliable sizes are found (the held-out 125 × 125 photos, ORL's 92 × 112 faces).
    public static let upsamplingBelow = 320

    /// Width to which each face's eye region is resized before the eye search, so that small and large
    /// faces cost the same and eyes of small faces still fill the eye model's 20 × 20 window.
    static let eyeSearchWidth = 160

    public init(
        faceModel: CascadeModel, fallbackModel: CascadeModel? = nil, eyeModel: CascadeModel,
        options: DetectionOptions = .faces,
        context: RenderContext? = nil
    ) throws(DetectionError) {
        let faceDetector = try CascadeDetector(model: faceModel, context: context)
        self.faceDetector = faceDetector
        fallbackDetector = try fallbackModel.map { model throws(DetectionError) in
            try CascadeDetector(model: model, context: faceDetector.context)
        }
        eyeDetector = try CascadeDetector(model: eyeModel, context: faceDetector.context)
        self.options = options
    }

    /// OpenCV's frontal-face Haar model, its improved LBP face model where the Haar model finds nothing,
    /// and its eye model, from Debian's `opencv-data`.
    public convenience init(options: DetectionOptions = .faces, context: RenderContext? = nil) throws(DetectionError) {
        try self.init(
            faceModel: try CascadeModel(contentsOf: CascadeModel.frontalFaceHaarPath),
            fallbackModel: try CascadeModel(contentsOf: CascadeModel.frontalFaceLBPPath),
            eyeModel: try CascadeModel(contentsOf: CascadeModel.eyeHaarPath), options: options, context: context)
    }

    /// The context the cascades run on.
    public var context: RenderContext { faceDetector.context }

    /// The faces of the photo's gray plane (`gray`, else rendered from `photo`) at least `minimumFaceSize`
    /// pixels wide, with the finder's other options.
    public func faces(in photo: PixelBuffer, gray: PixelBuffer?, minimumFaceSize: Int) throws(DetectionError)
        -> [FaceObservation]
    {
        var options = options
        options.minSize = minimumFaceSize
        if let gray { return try faces(in: gray, options: options) }
        let plane: PixelBuffer
        do { plane = try context.grayPlane(of: photo) } catch { throw .render(error) }
        return try faces(in: plane, options: options)
    }

    /// The faces in a one-plane `uint8` photo, strongest first, with their eyes where found; `options`
    /// replace the finder's own for this photo (a photo decoded at half size searches half-size faces).
    public func faces(in photo: PixelBuffer, options: DetectionOptions? = nil) throws(DetectionError)
        -> [FaceObservation]
    {
        var detections = try detect(with: faceDetector, in: photo, options: options ?? self.options)
        if detections.isEmpty, let fallbackDetector {
            detections = try detect(with: fallbackDetector, in: photo, options: options ?? self.options)
        }
        guard !detections.isEmpty else { return [] }
        // Every face's eye region, cropped and resized, in one render.
        let regions = detections.map { eyeRegion(of: $0.rect, in: photo.descriptor) }
        let source = Image(photo)
        let crops: [PixelBuffer]
        do {
            crops = try faceDetector.context.render(
                regions.map { region in
                    source.cropped(to: region.rect).resized(width: region.scaledWidth, height: region.scaledHeight)
                })
        } catch { throw .render(error) }
        var faces: [FaceObservation] = []
        for ((detection, region), crop) in zip(zip(detections, regions), crops) {
            faces.append(
                FaceObservation(
                    rect: detection.rect, eyes: try eyes(in: crop, region: region, face: detection.rect),
                    neighbours: detection.neighbours))
        }
        return faces
    }

    /// `detector`'s detections in a photo, a small one searched at twice its size (the minimum size then
    /// counts in the doubled pixels: faces half as small are found).
    private func detect(with detector: CascadeDetector, in photo: PixelBuffer, options: DetectionOptions)
        throws(DetectionError) -> [Detection]
    {
        let (width, height) = (photo.descriptor.width, photo.descriptor.height)
        guard min(width, height) < Self.upsamplingBelow else { return try detector.detect(in: photo, options: options) }
        let doubled: PixelBuffer
        do { doubled = try detector.context.render(Image(photo).resized(width: 2 * width, height: 2 * height)) } catch {
            throw .render(error)
        }
        var doubledOptions = options
        doubledOptions.maxSize = options.maxSize.map { 2 * $0 }
        return try detector.detect(in: doubled, options: doubledOptions).map { found in
            Detection(
                rect: PixelRect(
                    x: found.rect.x / 2, y: found.rect.y / 2, width: found.rect.width / 2, height: found.rect.height / 2
                ),
                neighbours: found.neighbours)
        }
    }

    /// The part of a face searched for eyes (its top 60 %, inside the photo) and the size it is scaled to.
    private func eyeRegion(of face: PixelRect, in photo: ImageDescriptor) -> (
        rect: PixelRect, scaledWidth: Int, scaledHeight: Int
    ) {
        let x = max(face.x, 0), y = max(face.y, 0)
        let rect = PixelRect(
            x: x, y: y, width: max(1, min(face.x + face.width, photo.width) - x),
            height: max(1, min(face.y + face.height * 3 / 5, photo.height) - y))
        let scale = Double(Self.eyeSearchWidth) / Double(rect.width)
        return (rect, Self.eyeSearchWidth, max(1, Int((Double(rect.height) * scale).rounded())))
    }

    /// The strongest eye detection in each half of the face, or nil unless both halves have one and the
    /// line through them leans less than 30°.
    private func eyes(
        in crop: PixelBuffer, region: (rect: PixelRect, scaledWidth: Int, scaledHeight: Int),
        face: PixelRect
    ) throws(DetectionError) -> (left: ImagePoint, right: ImagePoint)? {
        let eyeOptions = DetectionOptions(
            scaleFactor: 1.1, minNeighbors: 3, minSize: Self.eyeSearchWidth / 8,
            maxSize: Self.eyeSearchWidth / 2)
        let scale = Float(region.rect.width) / Float(region.scaledWidth)
        let centres = try eyeDetector.detect(in: crop, options: eyeOptions).map { eye in
            ImagePoint(
                x: Float(region.rect.x) + (Float(eye.rect.x) + Float(eye.rect.width) / 2) * scale,
                y: Float(region.rect.y) + (Float(eye.rect.y) + Float(eye.rect.height) / 2) * scale)
        }
        let middle = Float(face.x) + Float(face.width) / 2
        // Detections come strongest first.
        guard let left = centres.first(where: { $0.x < middle }), let right = centres.first(where: { $0.x >= middle }),
            abs(atan2(right.y - left.y, right.x - left.x)) < Float.pi / 6
        else { return nil }
        return (left, right)
    }
}

extension DetectionOptions {
    /// OpenCV's usual face-search parameters: scale 1.1, clusters of more than 5, faces of 40 pixels or more.
    public static let faces = DetectionOptions(scaleFactor: 1.1, minNeighbors: 5, minSize: 40)
}
