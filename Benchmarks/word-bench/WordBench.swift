import ArgumentParser
import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// `word-bench`: how well and how fast photos are found by a word. On a folder of folders of photos and a
/// list of words, each with the folders whose photos it should find (caltech-dev's `queries.tsv`), every
/// photo is ranked for every word by its stored classes (``PhotoClasses``) through WordNet
/// (``WordClasses``): average precision and precision at 10 per word and in all, for each count of classes
/// kept per photo; the same with each word's own classes withheld, as for a word ImageNet lacks, the classes
/// near it weighted at several powers of their nearness; then the time to read WordNet and the class list,
/// and to answer a word at each library size (the collection's stored classes repeated, turned into
/// ``ClassPostings`` as a catalog holds them).
@main
struct WordBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "word-bench", abstract: "Measure photos found by a word: mAP, P@10 and time per word.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case markdown, json }

    @Option(help: "The device that prints: cpu or opencl.")
    var device: DeviceSelection = .cpu

    @Option(help: "markdown table or a JSON object.")
    var format: Format = .markdown

    @Option(help: "Timed runs per figure (median reported).")
    var runs = 5

    @Option(help: "A folder of folders of photos, each folder one kind of thing.")
    var collection = "../shared/datasets/caltech-dev"

    @Option(help: "word<TAB>folders (comma-separated) lines, after a header line; default: the collection's own.")
    var queries: String?

    @Option(parsing: .upToNextOption, help: "Counts of classes kept per photo to score.")
    var kept = [5, 10, 20, 50, PhotoClasses.storedCount, 1000]

    @Option(parsing: .upToNextOption, help: "Library sizes to time a word at.")
    var sizes = [10_000, 100_000]

    @Option(parsing: .upToNextOption, help: "Words to time.")
    var timedWords = ["dog", "car", "sunflower", "dog beach"]

    func validate() throws {
        guard runs >= 1, kept.allSatisfy({ $0 >= 1 }), sizes.allSatisfy({ $0 >= 1 }), !timedWords.isEmpty else {
            throw ValidationError("runs, kept counts and sizes ≥ 1 and a word to time, please")
        }
    }

    func run() throws {
        let words = try Self.queries(at: queries ?? collection + "/queries.tsv")
        var names: [String] = [], folders: [String] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: collection).sorted() {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: collection + "/" + folder)) ?? []
            for file in files.sorted() where file.lowercased().hasSuffix(".jpg") {
                names.append(folder + "/" + file)
                folders.append(folder)
            }
        }
        guard !names.isEmpty else { throw ValidationFailure("no photos in \(collection)") }
        guard let device = device.devices(progress: progress).first else { throw ValidationFailure("no device") }
        let printer = try PhotoPrinter(context: RenderContext(device: device))
        progress("classifying \(names.count) photos of \(collection)")
        var logits: [[Float]] = []
        for start in stride(from: 0, to: names.count, by: 16) {
            let photos = try names[start..<min(start + 16, names.count)].map {
                try ImageDecoder.decode(contentsOf: collection + "/" + $0)
            }
            logits += try printer.printsAndLogits(of: photos).map(\.logits)
        }
        var loaded: WordClasses?
        let loading = try medianSeconds(runs: runs) { loaded = try WordClasses() }
        guard let vocabulary = loaded else { return }

        var scores: [WordBenchReport.Score] = []
        for count in kept {
            let photos = logits.map { PhotoClasses(logits: $0, keeping: count) }
            for (word, relevant) in words {
                let query = try vocabulary.query([word])
                scores.append(
                    .init(
                        kept: count, word: word, power: nil, classes: query.terms.flatMap(\.classes).count,
                        nearest: query.terms.contains(where: \.nearest),
                        hits: Self.hits(photos.map(query.score), relevant: relevant, folders: folders)))
            }
        }

        // Words ImageNet lacks, as the words with classes of their own would be without them: each word's own
        // classes withheld, the classes near its most frequent sense weighted at each power.
        let stored = logits.map { PhotoClasses(logits: $0) }
        var withheld: [WordBenchReport.Score] = []
        for (word, relevant) in words {
            guard let term = try vocabulary.query([word]).terms.first, !term.nearest,
                let sense = try vocabulary.nouns.senses(of: word).first
            else { continue }
            var similarities = try vocabulary.similarities(to: sense)
            for index in term.classes { similarities[index] = 0 }
            for power in Self.nearnessPowers {
                let weights = WordClasses.weights(nearness: similarities, power: power)
                let scores = stored.map { $0.probability(weightedBy: weights) }
                withheld.append(
                    .init(
                        kept: PhotoClasses.storedCount, word: word, power: power,
                        classes: weights.filter { $0 >= WordClasses.leastWeight }.count, nearest: true,
                        hits: Self.hits(scores, relevant: relevant, folders: folders)))
            }
        }

        var timings: [WordBenchReport.Timing] = []
        for size in sizes {
            let library = ClassPostings((0..<size).map { stored[$0 % stored.count] })
            for word in timedWords {
                progress("timing \"\(word)\" among \(size) photos")
                let seconds = try medianSeconds(runs: runs) {
                    let query = try vocabulary.query([word])
                    _ = library.ranking(for: query, best: 100)
                }
                timings.append(.init(photos: size, words: word, seconds: seconds))
            }
        }
        let report = WordBenchReport(
            machine: machineDescription() + "; printed on \(device.kind)", runs: runs, photos: names.count,
            storedCount: PhotoClasses.storedCount, scores: scores, withheld: withheld, loadingSeconds: loading,
            timings: timings)
        switch format {
        case .json: try printJSONReport(report)
        case .markdown: print(report.markdown)
        }
    }

    /// The powers of nearness to weigh classes by where a word's own are withheld: the stored one, and others.
    static let nearnessPowers = [16, WordClasses.nearnessPower, 64, .infinity]

    /// The words and the folders each should find.
    static func queries(at path: String) throws -> [(word: String, folders: Set<String>)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationFailure("\(path): cannot read the words")
        }
        return try text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 2 else { throw ValidationFailure("\(path): \"\(line)\" is not word<TAB>folders") }
            return (String(fields[0]), Set(fields[1].split(separator: ",").map(String.init)))
        }
    }

    /// Whether each photo, best score first (ties to the earlier photo), is in one of the `relevant` folders.
    static func hits(_ scores: [Float], relevant: Set<String>, folders: [String]) -> [Bool] {
        scores.indices.sorted { (scores[$0], $1) > (scores[$1], $0) }.map { relevant.contains(folders[$0]) }
    }
}

/// Progress for a person watching; the table goes to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("word-bench: \(message)\n".utf8))
}
