import ImageKernels

/// A face detector by name: what `--detector` of every `cbir` command and benchmark takes, and the one
/// place that builds a detector with its fallback.
public enum DetectorChoice: Sendable, Hashable, LosslessStringConvertible {
    /// OpenCV's frontal-face Haar cascade, its LBP cascade where the Haar one finds nothing; eyes by its
    /// eye cascade (``CascadeFaceFinder``).
    case haar
    /// OpenCV's improved frontal-face LBP cascade alone; eyes by the eye cascade.
    case lbp
    /// MediaPipe's BlazeFace, full range (large photos searched in squares down to the smallest face
    /// asked for), its short-range model where that finds nothing (close-ups); eyes from its keypoints.
    case blazeFace
    /// BlazeFace's short-range model alone, for faces near the camera.
    case blazeFaceShort
    /// An OpenCV cascade file (`.xml`) of the user's; eyes by the eye cascade.
    case cascade(path: String)

    /// The detector used when none is named: BlazeFace, chosen by measurement (docs/framework.md, "Which detector").
    public static let `default` = DetectorChoice.blazeFace

    /// The detectors known by name.
    public static let named: [DetectorChoice] = [.haar, .lbp, .blazeFace, .blazeFaceShort]

    /// The names `init(_:)` reads, and the form of a cascade file's, for help texts.
    public static let names = named.map(\.description) + ["PATH.xml"]

    /// A detector by name (`haar`, `lbp`, `blazeface`, `blazeface-short`) or the path of a cascade file
    /// ending in `.xml`; nil for anything else.
    public init?(_ description: String) {
        if let known = Self.named.first(where: { $0.description == description }) {
            self = known
        } else if description.lowercased().hasSuffix(".xml") {
            self = .cascade(path: description)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .haar: "haar"
        case .lbp: "lbp"
        case .blazeFace: BlazeFaceDetector.Model.fullRange.rawValue
        case .blazeFaceShort: BlazeFaceDetector.Model.shortRange.rawValue
        case .cascade(let path): path
        }
    }

    /// Whether the detector reads the photo's colours; the cascades read its gray plane only.
    public var readsColour: Bool {
        switch self {
        case .blazeFace, .blazeFaceShort: true
        case .haar, .lbp, .cascade: false
        }
    }

    /// The detector, on `context` (nil: on the device that runs its kind of detection fastest here).
    /// `options` are the cascades' (their minimum size is replaced by each search's); `tiles` lets
    /// BlazeFace's full-range model search squares for faces too small in the whole photo.
    public func finder(
        options: DetectionOptions = .faces, tiles: Bool = true,
        context: RenderContext? = nil
    ) throws(DetectionError) -> any FaceFinder {
        /// A cascade file alone, eyes by the eye cascade.
        func cascade(_ path: String) throws(DetectionError) -> CascadeFaceFinder {
            try CascadeFaceFinder(
                faceModel: try CascadeModel(contentsOf: path),
                eyeModel: try CascadeModel(contentsOf: CascadeModel.eyeHaarPath), options: options, context: context)
        }
        switch self {
        case .haar:
            return try CascadeFaceFinder(options: options, context: context)
        case .lbp:
            return try cascade(CascadeModel.frontalFaceLBPPath)
        case .cascade(let path):
            return try cascade(path)
        case .blazeFace:
            let fullRange = try BlazeFaceDetector(model: .fullRange, tiles: tiles, context: context)
            return FallbackFaceFinder(
                fullRange, fallback: try BlazeFaceDetector(model: .shortRange, context: fullRange.context))
        case .blazeFaceShort:
            return try BlazeFaceDetector(model: .shortRange, context: context)
        }
    }
}
