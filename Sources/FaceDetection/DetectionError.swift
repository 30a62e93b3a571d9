/// Why a cascade model could not be loaded or a detection could not run.
public enum DetectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The model file could not be read.
    case unreadableModel(path: String, reason: String)
    /// The model file is not a cascade this detector understands.
    case malformedModel(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableModel(let path, let reason): "\(path): cannot read cascade model: \(reason)"
        case .malformedModel(let path, let reason): "\(path): not a usable cascade model: \(reason)"
        }
    }
}
