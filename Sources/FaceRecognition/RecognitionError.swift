import ImageKernels
import NeuralNetworks

/// Why a descriptor could not be made, stored or compared.
public enum RecognitionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Descriptors made with different parameters cannot be compared.
    case parametersMismatch(expected: DescriptorParameters, actual: DescriptorParameters)
    /// A weight map's grid differs from the descriptors' grid.
    case weightMapMismatch(map: String, grid: String)
    /// A weight-map file or text could not be read.
    case invalidWeightMap(source: String, reason: String)
    /// Descriptor parameters that cannot work (a grid larger than the face, say).
    case invalidParameters(String)
    /// A stored descriptor that cannot be read back.
    case damagedDescriptor(String)
    /// A face or image identifier already in the gallery, or one that is not.
    case identifier(String)
    /// Rendering on the device failed.
    case render(RenderError)
    /// A model file is missing or damaged.
    case model(ModelError)
    /// A gallery file (``Gallery/init(contentsOf:parameters:tag:context:segmentBytes:)``) is missing, holds
    /// other faces, is damaged, or cannot be written.
    case galleryFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .parametersMismatch(let expected, let actual):
            "descriptor parameters differ: expected \(expected), got \(actual)"
        case .weightMapMismatch(let map, let grid):
            "weight map is \(map) but descriptors use a \(grid) grid"
        case .invalidWeightMap(let source, let reason):
            "\(source): not a weight map: \(reason)"
        case .invalidParameters(let reason):
            "invalid descriptor parameters: \(reason)"
        case .damagedDescriptor(let reason):
            "damaged descriptor: \(reason)"
        case .identifier(let reason):
            reason
        case .render(let error):
            error.description
        case .model(let error):
            error.description
        case .galleryFile(let path, let reason):
            "\(path): \(reason)"
        }
    }
}
