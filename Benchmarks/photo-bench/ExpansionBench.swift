import BenchmarkSupport
import Foundation
import ImageCodecs
import PhotoSimilarity

/// What each step of ``PrintExpansion`` adds to the prints' ranking of UKBench-style sets: the stored prints,
/// then power normalisation, α query expansion, database-side augmentation and both, each set scored alone
/// and all together (each photo a query against the set, as ``RetrievalScore`` counts); and, on the first
/// set (the one to tune on), both steps at each neighbour count and weight power. With distractors, the sets
/// together are scored once more among them: photos of other things in the gallery (never queries), as a
/// library holds photos with no others of their kind, which augmentation must not blur into the rest.
struct ExpansionBench {
    /// The sets' folders; each photo's group is its number ÷ 4, across folders.
    let folders: [String]
    /// A folder of unrelated photos (in folders of their own), or nil.
    let distractors: String?
    let printer: PhotoPrinter

    /// The neighbour counts and weight powers of the tuning grid.
    static let neighbourCounts = [1, 2, 3, 4, 5, 7, 10]
    static let weightPowers: [Float] = [0, 1, 2, 3]

    func rows() throws -> (steps: [PhotoBenchReport.Expansion], grid: [PhotoBenchReport.Expansion]) {
        var sets: [(name: String, prints: [[Float]], groups: [Int])] = []
        for folder in folders {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jpg") }
                .sorted()
            progress("printing \(files.count) photos of \(folder) for the expansion")
            let groups = try files.map { file in
                guard let number = Int(file.filter(\.isNumber)) else {
                    throw ValidationFailure("\(file) has no number")
                }
                return number / 4
            }
            let prints = try printer.prints(of: files.map { try ImageDecoder.decode(contentsOf: folder + "/" + $0) })
            sets.append(((folder as NSString).lastPathComponent, prints, groups))
        }
        if sets.count > 1 {
            sets.append(
                (sets.map(\.name).joined(separator: " + "), sets.flatMap(\.prints), sets.flatMap(\.groups)))
        }
        var queries = sets.map { $0.prints.count }
        if let distractors, let all = sets.last {
            let files = (FileManager.default.enumerator(atPath: distractors)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".jpg") }.sorted()
            progress("printing \(files.count) photos of \(distractors) as distractors")
            let prints = try printer.prints(
                of: files.map { try ImageDecoder.decode(contentsOf: distractors + "/" + $0) })
            let name = "\(all.name) among \(files.count) of \((distractors as NSString).lastPathComponent)"
            sets.append((name, all.prints + prints, all.groups + files.indices.map { -1 - $0 }))
            queries.append(all.prints.count)
        }
        let standard = PrintExpansion.standard
        var steps: [PhotoBenchReport.Expansion] = []
        for (set, queries) in zip(sets, queries) {
            for step in Step.allCases {
                let score = Self.score(
                    set.prints, groups: set.groups, queries: queries, step: step, expansion: standard)
                steps.append(.init(set: set.name, photos: queries, step: step.rawValue, expansion: standard, score))
            }
        }
        let grid = sets.first.map { set in
            Self.neighbourCounts.flatMap { count in
                Self.weightPowers.map { power in
                    let expansion = PrintExpansion(neighbourCount: count, weightPower: power)
                    let score = Self.score(
                        set.prints, groups: set.groups, queries: set.prints.count, step: .both, expansion: expansion)
                    return PhotoBenchReport.Expansion(
                        set: set.name, photos: set.prints.count, step: Step.both.rawValue, expansion: expansion, score)
                }
            }
        }
        return (steps, grid ?? [])
    }

    /// The steps, each adding to the one before (but for augmentation alone, which replaces query expansion).
    enum Step: String, CaseIterable {
        case stored = "stored prints"
        case rooted = "square roots"
        case queryExpansion = "square roots, α query expansion"
        case augmentation = "square roots, database-side augmentation"
        case both = "square roots, augmentation and α query expansion"
    }

    /// The set ranked by the prints as `step` makes them: the stored ones augmented or not, each photo's query
    /// its own print, rooted or not, expanded by the nearest of them or not.
    static func score(
        _ stored: [[Float]], groups: [Int], queries queryCount: Int, step: Step, expansion: PrintExpansion
    )
        -> RetrievalScore
    {
        let prints = step == .stored ? stored : stored.map(PrintExpansion.rooted)
        var gallery = prints
        if step == .augmentation || step == .both {
            let table = PrintTable(Dictionary(uniqueKeysWithValues: prints.enumerated().map { (Int64($0), $1) }))
            var neighbourhoods = PrintNeighbourhoods(count: expansion.neighbourCount)
            neighbourhoods.update(to: table)
            gallery = prints.enumerated().map { index, print in
                expansion.augmented(Int64(index), in: table.prints, neighbourhoods: neighbourhoods) ?? print
            }
        }
        var queries = prints
        if step == .queryExpansion || step == .both {
            queries = prints.prefix(queryCount).map { query in
                let nearest = gallery.indices.map { ($0, PrintExpansion.similarity(query, gallery[$0])) }
                    .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(expansion.neighbourCount)
                return expansion.expanded(query, with: nearest.map { (gallery[$0.0], $0.1) })
            }
        }
        return RetrievalScore(groups: groups, queries: queryCount) {
            1 - PrintExpansion.similarity(queries[$0], gallery[$1])
        }
    }
}
