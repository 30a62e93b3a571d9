import Foundation
import ImageKernels
import Testing

/// Where the repository is: the folder that holds `Tests/`, found from this file's own path.
public enum Repository {
    public static let root: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        components.removeLast(3)
        return components.joined(separator: "/")
    }()

    /// The reference outputs committed under `Tests/Reference` (dlib's, MediaPipe's).
    public static let referenceFiles = root + "/Tests/Reference"
}

/// Where the shared datasets are: `$SHARED_DATASETS`, else `../shared/datasets` beside the repository.
public enum SharedData {
    public static let root: String =
        ProcessInfo.processInfo.environment["SHARED_DATASETS"]
        ?? FileSystemPath.folder(of: Repository.root) + "/shared/datasets"
}

extension SharedData {
    /// Whether every test that reads a dataset must run (`FACESEARCH_REQUIRE_DATASETS` set, as CI, which has
    /// them, sets it): a dataset missing there fails its tests instead of skipping them.
    public static let isRequired = ProcessInfo.processInfo.environment["FACESEARCH_REQUIRE_DATASETS"] != nil
}

/// A dataset of ``SharedData/root`` that tests read (its README says what each holds).
public enum SharedDataset: String, Sendable, CaseIterable {
    case orl
    case wildPhotos = "wild-photos"
    case ukbenchDev = "ukbench-dev"
    case caltechDev = "caltech-dev"
    case glint24 = "glint-24"

    public var path: String { SharedData.root + "/" + rawValue }
    public var isPresent: Bool { FileManager.default.fileExists(atPath: path) }

    /// Copies the first `count` photos (`image_0001.jpg` on) of each of `kinds`, folders of caltech-dev, into
    /// folders of the same names under `folder`.
    public static func copyCaltechPhotos(of kinds: [String], count: Int, into folder: String) throws {
        for kind in kinds {
            try FileManager.default.createDirectory(atPath: folder + "/" + kind, withIntermediateDirectories: true)
            for number in 1...count {
                let name = String(format: "%@/image_%04d.jpg", kind, number)
                try FileManager.default.copyItem(atPath: caltechDev.path + "/" + name, toPath: folder + "/" + name)
            }
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test where the shared `datasets` are and skips it, naming the missing ones, where they are not (a
    /// clone with nothing beside it); where ``SharedData/isRequired`` it always runs.
    public static func needs(_ datasets: SharedDataset...) -> Self {
        let missing = datasets.filter { !$0.isPresent }.map(\.rawValue)
        return .enabled(
            if: missing.isEmpty || SharedData.isRequired,
            Comment(
                rawValue: "needs the shared dataset\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) "
                    + "in \(SharedData.root) (not beside this clone)"))
    }
}

/// The main job's sample photos `scripts/setup.sh` fetches: `$FACESEARCH_SAMPLES`, else
/// `~/.cache/facesearch/samples` (`gallery/` and `probe/`).
public enum SamplePhotos {
    public static let root: String =
        ProcessInfo.processInfo.environment["FACESEARCH_SAMPLES"]
        ?? FileManager.default.homeDirectoryForCurrentUser.path + "/.cache/facesearch/samples"
}

/// Reads the arrays reference files carry as base64 (the reference scripts write them so).
public enum ReferenceValues {
    /// Little-endian float32 values.
    public static func floats(base64: String) throws -> [Float] {
        try bytes(base64: base64).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    public static func bytes(base64: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: base64) else { throw ReferenceError.notBase64(String(base64.prefix(40))) }
        return [UInt8](data)
    }

    public enum ReferenceError: Error {
        case notBase64(String)
    }
}
