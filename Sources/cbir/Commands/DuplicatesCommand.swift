import ArgumentParser
import Catalog
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// `cbir duplicates`: groups of copies among the indexed photos, and which copy to keep; or groups of other
/// shots of one scene.
struct DuplicatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "Group the indexed photos that are copies of one photo, and name the copy to keep.",
        discussion: """
            A copy is the same photo resized, re-encoded, brightened, cropped (down to half the frame) or turned a \
            little: photos whose prints lie within \(DuplicateGroups.printThreshold) (a cosine distance) or whose \
            perceptual hashes differ in at most \(DuplicateGroups.hashDistance) bits are compared by their pixels, \
            read from the files, and are copies where one, placed over the other or over a part of it (or, their \
            prints that close, turned back by a few degrees), agrees from \(DuplicateGroups.agreementThreshold); \
            byte-identical files are copies. Two photos of look-alike things (or parts of one page of text) are not \
            copies, however close. Each group is one photo, the copy to keep, and its copies: a group never grows \
            through a copy of a copy. The copy to keep has the most pixels, then is the clearly less compressed, \
            then the sharpest (the Laplacian's variance). With --similar, groups are other shots \
            of one object or scene instead (bursts, views a step apart): prints within \
            \(DuplicateGroups.similarThreshold) (--threshold sets another), taken within \
            \(Int(DuplicateGroups.burstWindow / 60)) minutes of each other where both photos' Exif dates say when; \
            not copies, never to delete as such. Photos whose files changed or went since they were indexed are \
            left out, and listed on stderr. Groups come largest saving first. With --json, prints [{best, photos: \
            [{image, path, distance}], bytes}]: image ids, print distances to the kept one, bytes the others take.

            --apply trash (or --apply move-to DIR) acts on the groups shown with the same options: in each group \
            the copy to keep stays and the others move to your trash (the freedesktop.org trash your file manager \
            restores from) or under DIR at their paths inside the folder they were indexed from. Without --yes it \
            only says what it would do. --keep-in FOLDER keeps a copy under FOLDER where a group has one, \
            --keep-oldest the one taken first, --keep PATH that copy. A file is never deleted, the last copy never \
            moved, and a copy changed since indexing is left alone. Every move is journalled in the catalog \
            before it is made: --runs lists the runs, --undo [RUN] puts a run's files back with their faces, names \
            and prints (by default the latest), and a run that was killed is completed or reversed by the next.
            """)

    @Option(help: "With --similar: the cosine distance within which photos are other shots of one scene (0 to 2).")
    var threshold: Float?

    @Flag(help: "Group other shots of one object or scene (bursts, views), not copies.")
    var similar = false

    @Flag(help: "Print JSON (see above).")
    var json = false

    @Option(help: "Write a PNG sheet: each group's photos in a row, the copy to keep first.")
    var sheet: String?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Move each group's other copies: trash, or move-to DIR.", valueName: "trash|move-to DIR"))
    var apply: [String] = []

    @Flag(help: "With --apply: move the files (without it, only say what would move).")
    var yes = false

    @Option(help: "With --apply: keep a copy under this folder where a group has one (repeatable).")
    var keepIn: [String] = []

    @Flag(help: "With --apply: keep the copy taken first (its Exif date, else its file's time).")
    var keepOldest = false

    @Option(help: "With --apply: keep this copy in its group (repeatable).")
    var keep: [String] = []

    @Flag(help: "Put back the files a run moved (the run given, else the latest).")
    var undo = false

    @Argument(help: "With --undo: the run to undo (see --runs).")
    var run: Int64?

    @Flag(help: "List the runs that moved copies, newest first.")
    var runs = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var deviceOptions: DeviceOptions

    func validate() throws {
        if let threshold, !(threshold.isFinite && (0...2).contains(threshold)) {
            throw ValidationError("--threshold must be a cosine distance from 0 to 2")
        }
        if threshold != nil && !similar { throw ValidationError("--threshold sets --similar's distance: give both") }
        if !apply.isEmpty && apply != ["trash"] && !(apply.count == 2 && apply[0] == "move-to") {
            throw ValidationError("--apply takes trash, or move-to DIR")
        }
        if apply.isEmpty && (yes || !keepIn.isEmpty || keepOldest || !keep.isEmpty) {
            throw ValidationError("--yes, --keep-in, --keep-oldest and --keep go with --apply")
        }
        if [!apply.isEmpty, undo, runs].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --apply, --undo and --runs")
        }
        if (undo || runs) && (similar || sheet != nil) {
            throw ValidationError("--undo and --runs take no groups' options")
        }
        if run != nil && !undo { throw ValidationError("a run number goes with --undo") }
    }

    func run() async throws {
        if undo || runs { return try await journal() }
        let store = try database.open(access: apply.isEmpty ? .readOnly : .readWrite)
        let context = try deviceOptions.context() ?? RenderContext.orDefault(nil, for: .search)
        if try store.statistics().printedImages == 0 {
            note(
                "no photo is printed yet, so only byte-identical copies are grouped: "
                    + "`cbir index <folder> --db \(database.shown)` prints them")
        }
        let stale = try store.staleDuplicateCandidates()
        let kind: DuplicateKind =
            similar ? .shots(threshold: threshold ?? DuplicateGroups.similarThreshold) : .copies
        let groups = try store.duplicateGroups(kind, context: context, excluding: Set(stale.map(\.image)))
        if !stale.isEmpty {
            note(
                "\(counted(stale.count, "photo")) \(stale.count == 1 ? "was" : "were") left out, "
                    + "changed or gone since indexing "
                    + "(`cbir index <folder> --db \(database.shown)` brings the catalog up to date):\n"
                    + stale.prefix(20).map { "  \(FileSystemPath.displayed($0.path)): \($0.reason)\n" }.joined()
                    + (stale.count > 20 ? "  and \(stale.count - 20) more\n" : ""))
        }
        if !apply.isEmpty {
            try await cleanUp(groups, in: store)
        } else if json {
            try printJSON(groups)
        } else {
            for group in groups {
                let others =
                    similar
                    ? counted(group.photos.count - 1, "other shot")
                    : counted(group.photos.count - 1, "copy", "copies")
                print(
                    "keep " + FileSystemPath.displayed(group.best)
                        + " (\(others), " + String(format: "%.1f MB)", Double(group.bytes) / 1e6))
                for photo in group.photos.dropFirst() {
                    print(String(format: "  %.4f  ", photo.distance) + FileSystemPath.displayed(photo.path))
                }
            }
            let megabytes = Double(groups.reduce(0) { $0 + $1.bytes }) / 1e6
            print(
                "\(counted(groups.count, "group")), " + String(format: "%.1f", megabytes)
                    + (similar ? " MB in other shots" : " MB in copies"))
        }
        if let sheet { try writeSheet(groups, context: context, to: sheet) }
    }

    /// A line for the person at the terminal, on stderr: stdout holds the groups alone.
    func note(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Each group as a row of gray thumbnails, the kept copy first, captioned with distances and names; a
    /// group of more than a row's ``MatchSheet/maximumColumns`` shows its first and how many more it holds.
    private func writeSheet(_ groups: [DuplicateGroup], context: RenderContext, to path: String) throws {
        let columns = min(MatchSheet.maximumColumns, max(1, groups.map(\.photos.count).max() ?? 1))
        let blank = try PixelBuffer(width: 1, height: 1, values: [UInt8(255)])
        var cells: [MatchSheet.Cell] = []
        for group in groups {
            let shown = group.photos.count > columns ? columns - 1 : group.photos.count
            for (index, photo) in group.photos.prefix(shown).enumerated() {
                cells.append(
                    MatchSheet.Cell(
                        face: try MatchSheet.photo(photo.path, context: context),
                        caption: [
                            index == 0 ? "keep" : String(format: "%.3f", photo.distance),
                            MatchSheet.name(photo.path),
                        ]))
            }
            if shown < group.photos.count {
                cells.append(MatchSheet.Cell(face: blank, caption: ["and \(group.photos.count - shown) more"]))
            }
            while cells.count % columns != 0 { cells.append(MatchSheet.Cell(face: blank, caption: [])) }
        }
        try ImageEncoder.write(try MatchSheet.make(cells, columns: columns), to: path)
    }
}
