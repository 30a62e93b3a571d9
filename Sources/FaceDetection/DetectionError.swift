import ImageKernels
import NeuralNetworks

/// Why a detector's model could not be loaded or a detection could not run.
public enum DetectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The model file could not be read.
    case unreadableModel(path: String, reason: String)
    /// The model file is not a cascade this detector understands.
    case malformedModel(path: String, reason: String)
    /// A network model (BlazeFace's) could not be used.
    case model(ModelError)
    /// The image cannot be searched (not one plane of `uint8`, say).
    case invalidImage(String)
    /// Rendering on the device failed.
    case render(RenderError)

    public var description: String {
        switch self {
        case .unreadableModel(let path, let reason): "\(path): cannot read cascade model: \(reason)"
        case .malformedModel(let path, let reason): "\(path): not a usable cascade model: \(reason)"
        case .model(let error): error.description
        case .invalidImage(let reason): "cannot detect: \(reason)"
        case .render(let error): error.description
        }
    }
}
