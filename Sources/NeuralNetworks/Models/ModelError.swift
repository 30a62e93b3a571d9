/// Why a model file could not be used: each case names the file, and the byte offset where its contents
/// went wrong.
public enum ModelError: Error, Equatable, CustomStringConvertible {
    /// The file is not there; `setup` is the command that fetches it.
    case missing(path: String, setup: String)
    case unreadable(path: String, reason: String)
    /// The file ends at `offset` where `needed` more bytes were expected.
    case truncated(path: String, offset: Int, needed: Int)
    /// The contents at `offset` are not what the format allows.
    case malformed(path: String, offset: Int, reason: String)
    /// The file uses something this reader does not support (an operator, a tensor type, a format), named.
    case unsupported(path: String, what: String)

    public var description: String {
        switch self {
        case .missing(let path, let setup): "\(path): model file missing; run `\(setup)` to fetch it"
        case .unreadable(let path, let reason): "\(path): cannot read the model file: \(reason)"
        case .truncated(let path, let offset, let needed):
            "\(path): truncated at byte \(offset) (\(needed) more bytes expected)"
        case .malformed(let path, let offset, let reason): "\(path): malformed at byte \(offset): \(reason)"
        case .unsupported(let path, let what): "\(path): not supported: \(what)"
        }
    }
}

extension ModelError {
    /// Refuses weights that are not finite numbers (NaN, ±∞): one of them makes every output NaN, and a
    /// model file is untrusted input. `tensor` names the weights, `offset` where they lie in the file.
    static func requireFinite(_ values: [Float], tensor: String, path: String, offset: Int) throws(ModelError) {
        guard let index = values.firstIndex(where: { !$0.isFinite }) else { return }
        throw .malformed(
            path: path, offset: offset,
            reason: "\(tensor) holds \(values[index]) at index \(index): weights must be finite numbers")
    }
}
