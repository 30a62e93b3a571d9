import ImageKernels

/// Finds the faces that indexing and probing cut out, describe and embed: the cascades (``CascadeFaceFinder``)
/// or BlazeFace (``BlazeFaceDetector``). Boxes come as the cascades draw them, whichever finds them, so
/// that crops, descriptors and landmarks do not depend on the detector.
public protocol FaceFinder: Sendable {
    /// The context the detector renders on, and its crops.
    var context: RenderContext { get }

    /// The faces of a `uint8` photo (gray, RGB or RGBA) at least `minimumFaceSize` pixels wide, strongest
    /// first, with their eyes where found. `gray` is the photo's one gray plane where the caller has it
    /// already; a finder that reads gray renders it otherwise, one that reads colour ignores it.
    func faces(in photo: PixelBuffer, gray: PixelBuffer?, minimumFaceSize: Int) throws(DetectionError)
        -> [FaceObservation]

    /// The faces of several photos, each as ``faces(in:gray:minimumFaceSize:)`` finds them, or the error that
    /// photo met. A finder that runs a network may run the photos through it together, which takes less time
    /// a photo; by default they are searched one at a time.
    func faces(in requests: [FaceSearchRequest]) -> [Result<[FaceObservation], DetectionError>]
}

extension FaceFinder {
    public func faces(in requests: [FaceSearchRequest]) -> [Result<[FaceObservation], DetectionError>] {
        requests.map { request in
            Result { () throws(DetectionError) in
                try faces(in: request.photo, gray: request.gray, minimumFaceSize: request.minimumFaceSize)
            }
        }
    }

    /// Each face cut out as a `size` × `size` square around its box grown by `margin` of its side on every
    /// edge, rotated about its centre to level the eyes where they were found: one batch, one render.
    /// Faces much larger than `size` are first shrunk by area averaging, so the crop does not alias.
    public func alignedFaces(
        _ faces: [FaceObservation], in photo: PixelBuffer, size: Int = 128,
        margin: Float = 0.1
    ) throws(DetectionError) -> PixelBuffer {
        guard !faces.isEmpty else { throw .invalidImage("no faces to crop") }
        let source = Image(photo), d = photo.descriptor
        let recipes = faces.map { face -> Image in
            let side = Float(max(face.rect.width, face.rect.height)) * (1 + 2 * margin)
            // Shrink by a whole factor first where the crop would skip pixels; shared by faces of one factor.
            let shrink = max(1, Int(side / Float(size)))
            let scaled =
                shrink == 1
                ? source
                : source.resized(
                    width: max(1, d.width / shrink), height: max(1, d.height / shrink),
                    method: .area)
            let scaleX = Float(max(1, d.width / shrink)) / Float(d.width),
                scaleY = Float(max(1, d.height / shrink)) / Float(d.height)
            // The face centre in the scaled image's pixel-index coordinates.
            let centre = (
                x: (Float(face.rect.x) + Float(face.rect.width) / 2) * scaleX - 0.5,
                y: (Float(face.rect.y) + Float(face.rect.height) / 2) * scaleY - 0.5
            )
            let zoom = Float(size) / (side * scaleX)
            let rotation = AffineMatrix.rotation(
                by: face.angle, about: centre,
                movingTo: (x: Float(size - 1) / 2, y: Float(size - 1) / 2))
            let target = (x: Float(size - 1) / 2, y: Float(size - 1) / 2)
            let transform = AffineMatrix(
                a: rotation.a * zoom, b: rotation.b * zoom, c: target.x + (rotation.c - target.x) * zoom,
                d: rotation.d * zoom, e: rotation.e * zoom, f: target.y + (rotation.f - target.y) * zoom)
            return scaled.transformed(by: transform, width: size, height: size)
        }
        do { return try PixelBuffer.batch(try context.render(recipes)) } catch { throw .render(error) }
    }
}
