/// Why an image file could not be read or written. Every case names the file.
public enum ImageCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read (missing, a folder, no permission, too big to read).
    case unreadable(path: String, reason: String)
    /// The file has zero bytes.
    case empty(path: String)
    /// The bytes are not a JPEG, PNG or PGM/PPM image.
    case unrecognizedFormat(path: String)
    /// The image data ends early.
    case truncated(path: String, detail: String)
    /// The image data is damaged or inconsistent.
    case corrupt(path: String, detail: String)
    /// The header claims more pixels than the limit allows; nothing was allocated for them.
    case tooLarge(path: String, width: Int, height: Int, limit: Int)
    /// Decoding would take more memory than all decoders may hold at once (``DecodingMemory``).
    case tooLargeToDecode(path: String, bytes: Int, limit: Int)
    /// A valid image of a kind this decoder does not handle (such as a CMYK JPEG).
    case unsupported(path: String, detail: String)
    /// Writing an image failed.
    case encodingFailed(path: String, reason: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .unreadable(let path, _), .empty(let path), .unrecognizedFormat(let path), .truncated(let path, _),
            .corrupt(let path, _), .tooLarge(let path, _, _, _), .tooLargeToDecode(let path, _, _),
            .unsupported(let path, _),
            .encodingFailed(let path, _):
            path
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot read: \(reason)"
        case .empty(let path): "\(path): empty file"
        case .unrecognizedFormat(let path): "\(path): not a JPEG, PNG or PGM/PPM image"
        case .truncated(let path, let detail): "\(path): truncated image data (\(detail))"
        case .corrupt(let path, let detail): "\(path): corrupt image (\(detail))"
        case .tooLarge(let path, let width, let height, let limit):
            "\(path): \(width)×\(height) exceeds the limit of \(limit) pixels"
        case .tooLargeToDecode(let path, let bytes, let limit):
            "\(path): decoding it takes \(bytes >> 20) MiB, more than the \(limit >> 20) MiB decoding may use"
        case .unsupported(let path, let detail): "\(path): unsupported image (\(detail))"
        case .encodingFailed(let path, let reason): "\(path): cannot write image: \(reason)"
        }
    }
}
