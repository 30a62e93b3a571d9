import ArgumentParser
import Catalog
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// `cbir duplicates`: groups of copies among the indexed photos, and which copy to keep.
struct DuplicatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "Group the indexed photos that are copies of one another, and name the copy to keep.",
        discussion: """
            Groups photos whose prints lie within the threshold (a cosine distance; by default \
            \(DuplicateGroups.printThreshold): resized, re-encoded, slightly cropped, rotated or brightened \
            copies; with --similar \(DuplicateGroups.similarThreshold): other shots of the same object or scene) \
            or whose perceptual hashes differ in at most \(DuplicateGroups.hashDistance) bits, linked through any \
            chain of such pairs, and byte-identical files, exact over all pairs. In each group the copy to keep is \
            the one with most pixels, then the clearly less compressed, then the sharpest (the Laplacian's \
            variance). Groups come largest saving first. With --json, prints [{best, photos: [{image, path, \
            distance}], bytes}]: image ids, distances to the kept copy, bytes the other copies take.
            """)

    @Option(help: "The cosine distance below which photos are copies (0 to 2).")
    var threshold: Float?

    @Flag(help: "Group other shots of the same object or scene too (a looser threshold).")
    var similar = false

    @Flag(help: "Print JSON (see above).")
    var json = false

    @Option(help: "Write a PNG sheet: each group's photos in a row, the copy to keep first.")
    var sheet: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var deviceOptions: DeviceOptions

    func validate() throws {
        if let threshold, !(threshold.isFinite && (0...2).contains(threshold)) {
            throw ValidationError("--threshold must be a cosine distance from 0 to 2")
        }
        if threshold != nil && similar { throw ValidationError("--threshold and --similar: give one") }
    }

    func run() throws {
        let store = try database.open()
        let context = try deviceOptions.context() ?? RenderContext.orDefault(nil, for: .search)
        guard try store.statistics().printedImages > 0 else {
            throw CommandFailure(
                """
                \(database.db): no photo is printed yet: run `cbir index <folder> --db \(database.db)` to print them
                """)
        }
        let groups = try store.duplicateGroups(
            threshold: threshold ?? (similar ? DuplicateGroups.similarThreshold : DuplicateGroups.printThreshold),
            context: context)
        if json {
            try printJSON(groups)
        } else {
            for group in groups {
                let copies = group.photos.count - 1
                print(
                    "keep " + FileSystemPath.displayed(group.best)
                        + String(
                            format: " (%d %@, %.1f MB)", copies, copies == 1 ? "copy" : "copies",
                            Double(group.bytes) / 1e6))
                for photo in group.photos.dropFirst() {
                    print(String(format: "  %.4f  ", photo.distance) + FileSystemPath.displayed(photo.path))
                }
            }
            let megabytes = Double(groups.reduce(0) { $0 + $1.bytes }) / 1e6
            print("\(groups.count) groups, " + String(format: "%.1f", megabytes) + " MB in copies")
        }
        if let sheet { try writeSheet(groups, context: context, to: sheet) }
    }

    /// Each group as a row of gray thumbnails, the kept copy first, captioned with distances and names.
    private func writeSheet(_ groups: [DuplicateGroup], context: RenderContext, to path: String) throws {
        let columns = max(1, groups.map(\.photos.count).max() ?? 1)
        var cells: [MatchSheet.Cell] = []
        for group in groups {
            for (index, photo) in group.photos.enumerated() {
                cells.append(
                    MatchSheet.Cell(
                        face: try MatchSheet.photo(photo.path, context: context),
                        caption: [
                            index == 0 ? "keep" : String(format: "%.3f", photo.distance),
                            MatchSheet.name(photo.path),
                        ]))
            }
            let blank = try PixelBuffer(width: 1, height: 1, values: [UInt8(255)])
            for _ in group.photos.count..<columns { cells.append(MatchSheet.Cell(face: blank, caption: [])) }
        }
        try ImageEncoder.write(try MatchSheet.make(cells, columns: columns), to: path)
    }
}
