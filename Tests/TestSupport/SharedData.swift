import Foundation

/// Where the shared datasets are: `$SHARED_DATASETS`, else `../shared/datasets` beside the repository.
public enum SharedData {
    public static let root: String = {
        if let override = ProcessInfo.processInfo.environment["SHARED_DATASETS"] { return override }
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        components.removeLast(4)
        return components.joined(separator: "/") + "/shared/datasets"
    }()
}

/// The main job's sample photos `scripts/setup.sh` fetches: `$FACESEARCH_SAMPLES`, else
/// `~/.cache/facesearch/samples` (`gallery/` and `probe/`).
public enum SamplePhotos {
    public static let root: String =
        ProcessInfo.processInfo.environment["FACESEARCH_SAMPLES"]
        ?? FileManager.default.homeDirectoryForCurrentUser.path + "/.cache/facesearch/samples"
}
