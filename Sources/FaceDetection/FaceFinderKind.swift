import ImageKernels

/// The face finders that indexing and probing can use, by name (`cbir index --detector`).
public enum FaceFinderKind: String, Sendable, CaseIterable {
    /// OpenCV's Haar cascade (its LBP cascade where the Haar one finds nothing), eyes by its eye cascade:
    /// ``FaceFinder``.
    case haar
    /// MediaPipe's BlazeFace, full range (large photos searched in squares down to the smallest face
    /// asked for), its short-range model where that finds nothing (close-ups); eyes from its keypoints.
    case blazeface

    /// The finder, on `context` (nil: on the device that runs its kind of detection fastest here).
    public func finder(context: RenderContext? = nil) throws(DetectionError) -> any FaceFinding {
        switch self {
        case .haar:
            return try FaceFinder(context: context)
        case .blazeface:
            let fullRange = try BlazeFaceDetector(model: .fullRange, context: context)
            return FallbackFaceFinder(fullRange, fallback: try BlazeFaceDetector(model: .shortRange, context: fullRange.context))
        }
    }
}
