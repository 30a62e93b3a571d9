import ArgumentParser
import Catalog
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// `cbir search`: the indexed photos that show what the words name.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find the indexed photos that show what the words name.",
        discussion: """
            Each word is a noun of WordNet 3.0 (English; plurals and words of several parts such as "golden \
            retriever" are understood). It names the classifier's ImageNet classes that are its senses or lie under \
            them ("dog": 120 breeds, "vehicle": cars, boats and planes); a word with no class under it names the \
            classes nearest to it in WordNet, and says which. Photos are ranked by how likely the classifier found, \
            when they were indexed, that they show each word (several words: all of them), from 1 down; photos that \
            show none of it are left out, as are photos whose files changed or went since they were indexed. \
            With --json, prints {words, results: [{path, score}]}, best first.
            """)

    @Argument(help: "The words (nouns) to find photos of.")
    var words: [String]

    @Option(parsing: .unconditional, help: "How many photos to list at most.")
    var top = 20

    @Flag(help: "Print JSON (see above).")
    var json = false

    @Option(help: "Write a PNG sheet of the photos found, with their scores and file names.")
    var sheet: String?

    @OptionGroup var database: DatabaseOptions

    struct Report: Encodable {
        struct Result: Encodable {
            let path: String
            let score: Float
        }
        let words: [String]
        let results: [Result]
    }

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be at least 1") }
    }

    func run() throws {
        let store = try database.open()
        let vocabulary = try WordClasses()
        let query = try vocabulary.query(words)
        guard try store.hasPhotoClasses() else {
            throw CommandFailure(
                """
                \(database.shown): no photo has classes to be found by yet: run `cbir index <folder> --db \
                \(database.shown)` to give them theirs
                """)
        }
        for note in try vocabulary.notes(on: query) { FileHandle.standardError.write(Data("\(note)\n".utf8)) }
        let found = try store.photos(showing: query, top: top)
        let report = Report(
            words: query.terms.map(\.noun), results: found.map { Report.Result(path: $0.path, score: $0.score) })
        if json {
            try printJSON(report)
        } else {
            if found.isEmpty {
                FileHandle.standardError.write(Data("no indexed photo shows \(words.joined(separator: " "))\n".utf8))
            }
            for result in report.results {
                Swift.print(String(format: "  %.4f  ", result.score) + FileSystemPath.displayed(result.path))
            }
        }
        if let sheet, !report.results.isEmpty {
            let context = try RenderContext.orDefault(nil, for: .search)
            let cells = try report.results.map { result in
                MatchSheet.Cell(
                    face: try MatchSheet.photo(result.path, context: context),
                    caption: [String(format: "%.3f", result.score), MatchSheet.name(result.path)])
            }
            try ImageEncoder.write(try MatchSheet.make(cells, columns: 6), to: sheet)
        }
    }
}
