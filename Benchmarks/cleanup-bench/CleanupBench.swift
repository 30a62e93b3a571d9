import ArgumentParser
import BenchmarkSupport
import Catalog
import Foundation
import ImageKernels

/// `cleanup-bench`: what cleaning up duplicates costs on a library the size of a family's (``CleanupLibrary``:
/// distinct photos and copies of some), indexed with prints into a SQLite catalog. Each run looks (the groups
/// of copies and the plan, what `cbir duplicates --apply` prints without `--yes`), applies (the moves, each
/// journalled) and undoes, once into the trash and once under a folder: seconds and peak memory of each, and
/// how many of the copies made the plan moves, beside the photos it moves that are no copies.
@main
struct CleanupBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cleanup-bench", abstract: "Measure looking for duplicates, moving them aside and undoing it.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case markdown, json }

    @Option(help: "Photos in the library, copies included.")
    var photos = 10_000

    @Option(help: "Of them, copies of the others.")
    var copies = 2_000

    @Option(parsing: .upToNextOption, help: "Folders of photos to cut the distinct photos from.")
    var collections = ["ukbench-dev", "ukbench-val", "caltech-dev", "wild-photos"].map { "../shared/datasets/" + $0 }

    @Option(help: "Timed runs per figure (median reported).")
    var runs = 3

    @Option(help: "markdown table or a JSON object.")
    var format: Format = .markdown

    @Option(
        help:
            "A new or empty folder to make the library and its catalog in, kept afterwards (default: a temporary one).")
    var work: String?

    func validate() throws {
        guard runs >= 1, copies >= 1, photos >= 2 * copies else {
            throw ValidationError("runs and copies ≥ 1, and at least as many other photos as copies, please")
        }
    }

    func run() async throws {
        let work = Catalog.standardisedPath(self.work ?? NSTemporaryDirectory() + "cleanup-bench-" + UUID().uuidString)
        if let inside = try? FileManager.default.contentsOfDirectory(atPath: work), !inside.isEmpty {
            throw ValidationFailure("\(work) is not empty: --work names a new or empty folder")
        }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { if self.work == nil { try? FileManager.default.removeItem(atPath: work) } }
        // The trash is the home trash, on the library's file system: one of the run's own.
        setenv("XDG_DATA_HOME", work + "/data", 1)
        let context = RenderContext(device: .cpu)
        progress("making \(photos) photos")
        let library = try CleanupLibrary.make(
            in: work + "/library", photos: photos, copies: copies, from: collections, context: context,
            progress: progress)
        progress("indexing them with prints")
        let catalog = try Catalog(path: work + "/cbir.sqlite")
        let start = Date()
        _ = try await catalog.index(folder: library.folder, analyses: [try PhotoPrintAnalysis(context: context)])
        progress(String(format: "indexed in %.0f s", Date().timeIntervalSince(start)))

        var rows: [CleanupBenchReport.Row] = []
        let made = library.madePairs
        for destination in [CleanupDestination.trash, .folder(work + "/aside")] {
            var measured: [CleanupBenchReport.Measurement] = []
            for round in 1...runs {
                progress("\(Self.name(destination)): run \(round) of \(runs)")
                measured.append(try await measure(catalog, to: destination, made: made, context: context))
            }
            rows.append(.init(destination: Self.name(destination), measured))
        }
        let report = CleanupBenchReport(
            machine: machineDescription(), runs: runs, photos: photos, copies: copies, sources: library.sources,
            collections: collections.map { ($0 as NSString).lastPathComponent }, rows: rows)
        switch format {
        case .markdown: print(report.markdown)
        case .json: try printJSONReport(report)
        }
    }

    /// One look, apply and undo, checked: the undo puts back every file the apply moved. `made` holds the copies
    /// made, with their originals (``CleanupLibrary/madePairs``).
    func measure(
        _ catalog: Catalog, to destination: CleanupDestination, made: Set<[String]>, context: RenderContext
    ) async throws -> CleanupBenchReport.Measurement {
        PeakMemory.reset()
        var clock = Date()
        let groups = try catalog.duplicateGroups(.copies, context: context)
        let plan = try catalog.cleanupPlan(for: groups, to: destination)
        let look = Date().timeIntervalSince(clock), lookMemory = PeakMemory.megabytes()
        PeakMemory.reset()
        clock = Date()
        let done = try await catalog.applyCleanup(plan, to: destination)
        let apply = Date().timeIntervalSince(clock), applyMemory = PeakMemory.megabytes()
        clock = Date()
        let undone = try await catalog.undoCleanup(run: done.run)
        let undo = Date().timeIntervalSince(clock)
        let back = done.moved.filter { FileManager.default.fileExists(atPath: $0.path) }.count
        guard undone.refused.isEmpty, back == done.moved.count else {
            throw ValidationFailure(
                "the undo put back \(back) of \(done.moved.count) files: \(undone.refused.prefix(3))")
        }
        let others = done.moved.filter { !made.contains([$0.path, $0.keeper]) }
        for move in others.prefix(5) {
            let names = [move.path, move.keeper].map { $0.split(separator: "/").suffix(2).joined(separator: "/") }
            progress("moved \(names[0]), no copy made of \(names[1])")
        }
        return .init(
            groups: groups.count, moved: done.moved.count, leftAlone: done.leftAlone.count,
            copiesMoved: done.moved.count - others.count, othersMoved: others.count, lookSeconds: look,
            lookPeakMB: lookMemory, applySeconds: apply,
            applyPeakMB: applyMemory, undoSeconds: undo)
    }

    static func name(_ destination: CleanupDestination) -> String {
        switch destination {
        case .trash: "trash"
        case .folder: "move-to DIR"
        }
    }
}

/// Progress for a person watching; the table goes to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("cleanup-bench: \(message)\n".utf8))
}
