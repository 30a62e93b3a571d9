import ArgumentParser
import Catalog
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// `cbir similar`: the indexed photos most like each given photo.
struct SimilarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        abstract: "Find the indexed photos most like each given photo.",
        discussion: """
            Ranks every printed photo of the database by the cosine distance of its print (EfficientNet-Lite0) to \
            each given photo's: 0 for the same photo, about 0.1 for copies, 0.2–0.4 for other views of one object. \
            A photo in the database uses its stored print (unless its file changed since: it is printed afresh, \
            with a note that the catalog is stale); any other image file is decoded and printed first. Photos whose \
            files changed or went since they were indexed are left out of the answers. \
            With --json, prints [{query, results: [{path, distance}]}].
            """)

    @Argument(help: "The photos to find others like (indexed or not).")
    var photos: [String]

    @Option(parsing: .unconditional, help: "How many photos to list for each.")
    var top = 10

    @Flag(help: "Print JSON (see above).")
    var json = false

    @Option(help: "Write a PNG sheet: each query photo, then its nearest photos with distances and file names.")
    var sheet: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var deviceOptions: DeviceOptions

    struct Report: Encodable {
        struct Result: Encodable {
            let path: String
            let distance: Float
        }
        let query: String
        let results: [Result]
    }

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be at least 1") }
    }

    func run() throws {
        let store = try database.open(), chosen = try deviceOptions.context()
        let context = try chosen ?? RenderContext.orDefault(nil, for: .search)
        let statistics = try store.statistics()
        guard statistics.printedImages > 0 else {
            throw CommandFailure(
                """
                \(database.shown): no photo is printed yet: run `cbir index <folder> --db \(database.shown)` to print \
                them
                """)
        }
        var printer: PhotoPrinter?
        var reports: [Report] = []
        for photo in photos {
            let print: [Float]
            let record = try store.image(atPath: photo)
            let stale = record.flatMap { $0.status == .indexed ? IndexedFile.staleness(of: $0) : nil }
            if stale == nil, let stored = try store.storedPrint(ofPhotoAt: photo) {
                print = stored
            } else {
                if stale == .changed {
                    FileHandle.standardError.write(
                        Data(
                            ("\(FileSystemPath.displayed(photo)) changed since it was indexed, so it is printed "
                                + "as it is now; "
                                + "`cbir index <folder> --db \(database.shown)` brings the catalog up to date\n").utf8))
                }
                if printer == nil { printer = try PhotoPrinter(context: chosen) }
                let decoded = try Photo(path: photo, bytes: try ImageDecoder.contents(of: photo), context: context)
                print = try printer?.prints(of: [decoded.pixels]).first ?? []
            }
            let found = try store.similarPhotos(to: print, top: top, context: context)
            reports.append(
                Report(query: photo, results: found.map { Report.Result(path: $0.path, distance: $0.distance) }))
        }
        if json {
            try printJSON(reports)
        } else {
            for report in reports {
                Swift.print(FileSystemPath.displayed(report.query) + ":")
                for result in report.results {
                    Swift.print(String(format: "  %.4f  ", result.distance) + FileSystemPath.displayed(result.path))
                }
            }
        }
        if let sheet { try writeSheet(reports, context: context, to: sheet) }
    }

    /// Each query and its results as rows of gray thumbnails, captioned with distances and file names.
    private func writeSheet(_ reports: [Report], context: RenderContext, to path: String) throws {
        var cells: [MatchSheet.Cell] = []
        for report in reports {
            cells.append(
                MatchSheet.Cell(
                    face: try MatchSheet.photo(report.query, context: context),
                    caption: ["query", MatchSheet.name(report.query)]))
            for result in report.results {
                cells.append(
                    MatchSheet.Cell(
                        face: try MatchSheet.photo(result.path, context: context),
                        caption: [String(format: "%.3f", result.distance), MatchSheet.name(result.path)]))
            }
        }
        try ImageEncoder.write(try MatchSheet.make(cells, columns: top + 1), to: path)
    }
}
