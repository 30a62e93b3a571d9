import Foundation

/// Which copy of a group stays where it is when the others are moved aside: by default the group's own copy to
/// keep (the most pixels, then the less compressed, the sharper, the larger file); a user's preferences, in
/// this order, before it: a copy named outright, a copy under a preferred folder (the camera's originals), the
/// earliest taken.
public struct KeeperChoice: Sendable, Equatable {
    /// Copies to keep, each in its own group (`--keep PATH`): absolute, standardised paths.
    public var paths: Set<String>
    /// Folders whose copies are kept before any other (`--keep-in FOLDER`): absolute, standardised paths.
    public var folders: [String]
    /// Keeps the copy taken first (its Exif date, else its file's time) among those the folders leave.
    public var oldest: Bool

    public init(paths: Set<String> = [], folders: [String] = [], oldest: Bool = false) {
        self.paths = Set(paths.map(Catalog.standardisedPath))
        self.folders = folders.map(Catalog.standardisedPath)
        self.oldest = oldest
    }

    /// The member of `group` to keep. `taken` says when a member was taken (nil where nothing says).
    func keeper(of group: DuplicateGroup, taken: (DuplicateGroup.Member) -> Date?) -> DuplicateGroup.Member? {
        if let named = group.photos.first(where: { paths.contains($0.path) }) { return named }
        let preferred = group.photos.filter { photo in
            folders.contains { photo.path.hasPrefix($0 == "/" ? "/" : $0 + "/") }
        }
        let candidates = preferred.isEmpty ? group.photos : preferred
        guard oldest else { return candidates.first }
        let dates = candidates.map { taken($0) ?? .distantFuture }
        return zip(candidates, dates).min { $0.1 < $1.1 }?.0
    }
}
