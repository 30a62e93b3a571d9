import ImageKernels

/// Finds faces with one finder, and with another where the first finds none: BlazeFace's full-range model
/// for photos of people at a distance, then its short-range model for close-ups, which the full-range
/// model misses (ORL's faces, for one).
public struct FallbackFaceFinder: FaceFinder {
    public let primary: any FaceFinder
    public let fallback: any FaceFinder

    public init(_ primary: any FaceFinder, fallback: any FaceFinder) {
        self.primary = primary
        self.fallback = fallback
    }

    public var context: RenderContext { primary.context }

    public func faces(in photo: PixelBuffer, gray: PixelBuffer?, minimumFaceSize: Int) throws(DetectionError)
        -> [FaceObservation]
    {
        let found = try primary.faces(in: photo, gray: gray, minimumFaceSize: minimumFaceSize)
        return found.isEmpty ? try fallback.faces(in: photo, gray: gray, minimumFaceSize: minimumFaceSize) : found
    }
}
