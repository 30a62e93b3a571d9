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
        try faces(in: [FaceSearchRequest(photo: photo, gray: gray, minimumFaceSize: minimumFaceSize)])[0].get()
    }

    /// The primary finder's faces of all the photos together, then the fallback's of those it found none in.
    public func faces(in requests: [FaceSearchRequest]) -> [Result<[FaceObservation], DetectionError>] {
        var found = primary.faces(in: requests)
        let missed = found.indices.filter { (try? found[$0].get())?.isEmpty == true }
        for (index, result) in zip(missed, fallback.faces(in: missed.map { requests[$0] })) { found[index] = result }
        return found
    }
}
