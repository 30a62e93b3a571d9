import NeuralNetworks

/// ImageNet's 1,000 classes as the print network's classifier numbers them: class i is the i-th of their
/// WordNet 3.0 ids in sorted order (`n02084071` is the noun synset at offset 2084071 of `data.noun`), read
/// from timm's `imagenet_synsets.txt` (one id a line), which `scripts/setup.sh` fetches into the model cache.
public struct ImageNetClasses: Sendable {
    /// The file's name in the model cache.
    public static let file = "imagenet_synsets.txt"

    /// Each class's noun synset, by class.
    public let synsets: [WordNetNouns.Synset]

    /// Reads the list at `path` (default: the model cache); a missing file names the setup command, a damaged
    /// one the line it could not read.
    public init(contentsOf path: String = ModelCache.path(of: ImageNetClasses.file)) throws(WordSearchError) {
        let bytes: [UInt8]
        do { bytes = try ModelCache.contents(of: path) } catch { throw .classList(error) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingSuffix("\r") }
        var synsets: [WordNetNouns.Synset] = []
        for (index, line) in lines.enumerated() where !(index == lines.count - 1 && line.isEmpty) {
            guard line.count == 9, line.first == "n", let offset = WordNetNouns.Synset(line.dropFirst()),
                offset > (synsets.last ?? -1)
            else {
                throw .classList(
                    .unreadable(path: path, reason: "line \(index + 1) is not the next WordNet noun id in order"))
            }
            synsets.append(offset)
        }
        guard synsets.count == EfficientNetLite.imageNetClasses else {
            throw .classList(
                .unreadable(
                    path: path, reason: "\(synsets.count) classes, not ImageNet's \(EfficientNetLite.imageNetClasses)"))
        }
        self.synsets = synsets
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self
    }
}
