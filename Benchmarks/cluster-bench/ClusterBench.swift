import ArgumentParser
import BenchmarkSupport
import FaceDetection
import FaceRecognition
import Foundation
import ImageKernels

/// `cluster-bench`: how well and how fast faces are grouped into people. Quality against folder names on
/// ORL, glint-24 (hard faces) and any folder of person sub-folders, with and without the faces' nearest
/// faces (`--face-neighbours 0` is plain average linkage); time and peak memory at larger sizes, the faces grown from
/// ORL's by copies that are new people (each copy's embeddings turned by its own signed permutation of the
/// coordinates, which keeps every distance within the copy, plus a little noise); and the time to add 100
/// faces to the largest clustering.
@main
struct ClusterBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster-bench", abstract: "Measure the quality, time and memory of clustering faces into people.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case markdown, json }

    @Option(help: "Devices to time: cpu, opencl or all.")
    var device: DeviceSelection = .all

    @Option(help: "markdown table or a JSON list.")
    var format: Format = .markdown

    @Option(help: "Timed runs per figure (median reported).")
    var runs = 3

    @Option(help: "Folder of the shared datasets.")
    var datasets = "../shared/datasets"

    @Option(help: "Another folder of person sub-folders to measure quality on (repeatable).")
    var dataset: [String] = []

    @Option(
        help: """
            The face finder of the embeddings' face boxes: \(DetectorChoice.names.joined(separator: ", ")) \
            (default: \(DetectorChoice.default)).
            """,
        transform: DetectorChoice.argument)
    var detector = DetectorChoice.default

    @Option(parsing: .upToNextOption, help: "Sizes of the grown gallery to time.")
    var sizes: [Int] = [10_000, 100_000]

    @Option(parsing: .upToNextOption, help: "Clustering thresholds (root-mean-square distance between two groups).")
    var thresholds: [Float] = [FaceClustering.defaultThreshold]

    @Option(parsing: .upToNextOption, help: "Nearest faces counted per face (0: plain average linkage).")
    var faceNeighbours: [Int] = [0, FaceClustering.defaultFaceNeighbours]

    @Flag(
        help: """
            Measure a person's suggestions instead (`cbir people suggest`): how often the other part of a person \
            that clustering split comes first, and their time for the largest person at each size.
            """)
    var suggestions = false

    func validate() throws {
        guard runs >= 1, sizes.allSatisfy({ $0 >= 2 }), thresholds.allSatisfy({ $0 > 0 && $0.isFinite }),
            faceNeighbours.allSatisfy({ $0 >= 0 })
        else {
            throw ValidationError("runs ≥ 1, sizes ≥ 2, positive thresholds and face neighbours ≥ 0, please")
        }
    }

    func run() throws {
        let devices = device.devices(progress: progress)
        guard !devices.isEmpty else { throw ValidationFailure("no device to time") }
        let context = RenderContext(device: .cpu)
        let embedder = try FaceEmbedder(context: context), finder = try detector.finder(context: context)
        var sets: [(name: String, people: [[[Float]]])] = []
        let hard = datasets + "/glint-24"
        for folder in [datasets + "/orl"] + (FileManager.default.fileExists(atPath: hard) ? [hard] : []) + dataset {
            progress("\(folder): finding and embedding faces")
            let set = try FaceSet(folder: folder)
            sets.append((set.name, try set.withFaceBoxes(finder: finder, context: context).embeddings(embedder)))
        }
        let machine = machineDescription() + "; OpenCL: " + (devices.first { $0.kind != .cpu }?.name ?? "none")
        if suggestions {
            let rows = try devices.flatMap { device in
                let context = RenderContext(device: device)
                return try sets.map { set in
                    progress("\(set.name): suggestions on \(device.kind)")
                    return try SuggestionRow(GrownFaces(set.people), name: set.name, runs: runs, context: context)
                }
                    + sizes.map { size in
                        progress("\(sets[0].name) grown to \(size): suggestions on \(device.kind)")
                        return try SuggestionRow(
                            GrownFaces(sets[0].people, count: size), name: "\(sets[0].name) grown", runs: runs,
                            context: context)
                    }
            }
            switch format {
            case .json: try printJSONReport(rows)
            case .markdown: print(SuggestionRow.markdown(rows, machine: machine, runs: runs))
            }
            return
        }
        var rows: [ClusterRow] = []
        for device in devices {
            let context = RenderContext(device: device)
            for set in sets {
                for threshold in thresholds {
                    for neighbours in faceNeighbours {
                        rows.append(
                            try measure(
                                GrownFaces(set.people), name: set.name,
                                clustering: FaceClustering(threshold: threshold, faceNeighbours: neighbours),
                                context: context))
                    }
                }
            }
            for size in sizes {
                let grown = GrownFaces(sets[0].people, count: size)
                for neighbours in faceNeighbours {
                    rows.append(
                        try measure(
                            grown, name: "\(sets[0].name) grown",
                            clustering: FaceClustering(faceNeighbours: neighbours),
                            context: context))
                }
                rows.append(try measureAddition(grown, name: "\(sets[0].name) grown", context: context))
            }
        }
        switch format {
        case .json:
            try printJSONReport(rows)
        case .markdown:
            print(ClusterRow.markdown(rows, machine: machine, runs: runs))
        }
    }

    /// Clusters every face from scratch: median time of the runs, peak memory, quality of the last run.
    private func measure(
        _ faces: GrownFaces, name: String, clustering: FaceClustering, context: RenderContext
    ) throws -> ClusterRow {
        progress(
            """
            \(name): clustering \(faces.truth.count) faces on \(context.device.kind), \
            threshold \(clustering.threshold), \(clustering.faceNeighbours) face neighbours
            """)
        var labels: [Int?] = []
        PeakMemory.reset()
        let seconds = try medianSeconds(runs: runs) {
            labels = try clustering.clusters(of: faces.embeddings, length: faces.length, context: context)
        }
        return ClusterRow(
            dataset: name, device: "\(context.device.kind)", clustering: clustering, faces: faces.truth.count,
            people: Set(faces.truth).count, quality: ClusterQuality(clusters: labels, truth: faces.truth),
            seconds: seconds, peakMemoryMB: PeakMemory.megabytes())
    }

    /// Adds the last 100 faces to a clustering of the others (anchored, only the new faces searched).
    private func measureAddition(_ faces: GrownFaces, name: String, context: RenderContext) throws -> ClusterRow {
        let added = min(100, faces.truth.count / 2), existing = faces.truth.count - added
        progress("\(name): adding \(added) faces to \(existing) on \(context.device.kind)")
        let clustering = FaceClustering()
        let before = try clustering.clusters(
            of: Array(faces.embeddings.prefix(existing * faces.length)), length: faces.length, context: context)
        let start = FaceClustering.Start(
            groups: before + [Int?](repeating: nil, count: added), anchored: Set(before.compactMap { $0 }),
            changed: Array(existing..<faces.truth.count))
        var labels: [Int?] = []
        PeakMemory.reset()
        let seconds = try medianSeconds(runs: runs) {
            labels = try clustering.clusters(of: faces.embeddings, length: faces.length, start: start, context: context)
        }
        return ClusterRow(
            dataset: "\(name), +\(added) added", device: "\(context.device.kind)", clustering: clustering,
            faces: faces.truth.count, people: Set(faces.truth).count,
            quality: ClusterQuality(clusters: labels, truth: faces.truth), seconds: seconds,
            peakMemoryMB: PeakMemory.megabytes())
    }
}

/// Progress for a person watching; the table goes to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("cluster-bench: \(message)\n".utf8))
}
