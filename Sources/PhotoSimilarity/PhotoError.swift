import ImageKernels
import NeuralNetworks

/// Why a photo could not be printed, hashed or grouped.
public enum PhotoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The print's model file is missing or damaged.
    case model(ModelError)
    /// Rendering on the device failed.
    case render(RenderError)
    /// Inputs the operation cannot take (a photo that is not uint8, a threshold out of range), named.
    case invalidInput(String)
    /// The model gave a print that is no direction (NaN, infinite or zero values): its weights, though
    /// finite, are no use (the file named), and nothing it prints may be stored.
    case unusableModel(String)

    public var description: String {
        switch self {
        case .model(let error): error.description
        case .render(let error): error.description
        case .invalidInput(let reason): reason
        case .unusableModel(let reason): reason
        }
    }
}
