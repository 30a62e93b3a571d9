import ArgumentParser
import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import NeuralNetworks
import PhotoSimilarity

/// `photo-bench`: how well and how fast whole photos are compared. On a UKBench-style folder (photos
/// numbered so that number ÷ 4 is the object), the N-S score and mAP of the photo print (at each input
/// layout), the perceptual hash and a colour-histogram baseline, in one run; near-duplicate precision and
/// recall on transformed copies of one view of each object, among the other views; the time to group
/// random prints exactly beside the linear pass; and prints per second, decoding included, per device and
/// batch size.
@main
struct PhotoBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo-bench", abstract: "Measure similar-photo retrieval and photo printing speed.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case markdown, json }

    @Option(help: "Devices to time: cpu, opencl or all.")
    var device: DeviceSelection = .all

    @Option(help: "markdown table or a JSON object.")
    var format: Format = .markdown

    @Option(help: "Timed runs per figure (median reported).")
    var runs = 3

    @Option(help: "A UKBench-style folder: ukbenchNNNNN.jpg, group = number ÷ 4.")
    var photos = "../shared/datasets/ukbench-dev"

    @Option(parsing: .upToNextOption, help: "Batch sizes to time printing at.")
    var batches: [Int] = [1, 8, 16]

    @Option(help: "Photos printed per timed run.")
    var timedPhotos = 48

    @Option(
        parsing: .upToNextOption,
        help:
            """
            Input layouts of the print to score, each SIDE/RESIZED: the centre SIDE square after the shorter side \
            is resized to RESIZED.
            """
    )
    var layouts: [String] = ["224/256", "320/366"]

    @Option(parsing: .upToNextOption, help: "Cosine distances to group the prints of copies at.")
    var thresholds: [Float] = [0.05, 0.1, 0.125, 0.145, 0.175, 0.2, 0.25]

    @Option(parsing: .upToNextOption, help: "Hamming distances to group the hashes of copies at.")
    var hammingDistances: [Int] = [4, 8, 12, 16]

    @Option(parsing: .upToNextOption, help: "Counts of random prints to time grouping on.")
    var groupingSizes: [Int] = [10_000, 100_000]

    func validate() throws {
        guard runs >= 1, timedPhotos >= 1, batches.allSatisfy({ $0 >= 1 }), !layouts.isEmpty,
            groupingSizes.allSatisfy({ $0 >= 2 })
        else {
            throw ValidationError("runs, timed photos and batches ≥ 1, grouping sizes ≥ 2, and a layout, please")
        }
        guard thresholds.allSatisfy({ (0...2).contains($0) }), hammingDistances.allSatisfy({ (0...64).contains($0) })
        else {
            throw ValidationError("thresholds are cosine distances (0…2), Hamming distances 0…64")
        }
        for layout in layouts where Self.layout(layout) == nil {
            throw ValidationError("layout \(layout) is not SIDE/RESIZED with RESIZED ≥ SIDE ≥ 32")
        }
    }

    static func layout(_ text: String) -> (side: Int, resized: Int)? {
        let parts = text.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 32, parts[1] >= parts[0] else { return nil }
        return (parts[0], parts[1])
    }

    func run() throws {
        let devices = device.devices(progress: progress)
        guard !devices.isEmpty else { throw ValidationFailure("no device to time") }
        let files = try FileManager.default.contentsOfDirectory(atPath: photos).filter { $0.hasSuffix(".jpg") }.sorted()
        let groups = try files.map { file in
            guard let number = Int(file.filter(\.isNumber)) else { throw ValidationFailure("\(file) has no number") }
            return number / 4
        }
        progress("decoding \(files.count) photos")
        let decoded = try files.map { try ImageDecoder.decode(contentsOf: photos + "/" + $0) }
        let context = RenderContext(device: devices[0])

        var retrieval: [PhotoBenchReport.Retrieval] = [], defaultPrints: [[Float]] = []
        for layout in layouts.compactMap(Self.layout) {
            progress("printing at \(layout.side) after \(layout.resized)")
            let printer = try PhotoPrinter(inputSize: layout.side, resizedSide: layout.resized, context: context)
            let prints = try printer.prints(of: decoded)
            if layout == (EfficientNetLite.trainedSize, 256) { defaultPrints = prints }
            let score = RetrievalScore(groups: groups) { a, b in
                1 - zip(prints[a], prints[b]).reduce(0) { $0 + $1.0 * $1.1 }
            }
            retrieval.append(.init(method: "print, centre \(layout.side) of \(layout.resized)", score, files.count))
        }
        progress("hashing")
        let hashes = try PerceptualHash.hashes(ofGray: decoded.map { try context.grayPlane(of: $0) }, context: context)
        retrieval.append(
            .init(
                method: "64-bit DCT hash, Hamming",
                RetrievalScore(groups: groups) { Float(hashes[$0].distance(to: hashes[$1])) }, files.count))
        let histograms = decoded.map(ColourHistogram.init)
        retrieval.append(
            .init(
                method: "HSV 8×8×8 histogram, chi-square",
                RetrievalScore(groups: groups) { histograms[$0].distance(to: histograms[$1]) }, files.count))

        let nearDuplicates = try measureNearDuplicates(
            decoded, groups: groups, prints: defaultPrints, hashes: hashes, context: context)
        let grouping = try groupingSizes.map { try timeGrouping(count: $0, context: context) }

        var speed: [PhotoBenchReport.Speed] = []
        let timed = (0..<timedPhotos).map { photos + "/" + files[$0 % files.count] }
        for device in devices {
            let printer = try PhotoPrinter(context: RenderContext(device: device))
            for batch in batches {
                progress("timing \(timed.count) photos in batches of \(batch) on \(device.kind)")
                let seconds = try medianSeconds(runs: runs) {
                    for start in stride(from: 0, to: timed.count, by: batch) {
                        let photos = try timed[start..<min(start + batch, timed.count)].map {
                            try ImageDecoder.decode(contentsOf: $0)
                        }
                        _ = try printer.prints(of: photos)
                    }
                }
                speed.append(
                    .init(
                        device: "\(device.kind)", batch: batch, photos: timed.count, seconds: seconds,
                        photosPerSecond: Double(timed.count) / seconds))
            }
        }
        let machine =
            machineDescription() + "; OpenCL: " + (devices.first { $0.kind != .cpu }?.name ?? "none")
        let report = PhotoBenchReport(
            machine: machine, runs: runs, retrieval: retrieval, nearDuplicates: nearDuplicates, grouping: grouping,
            speed: speed)
        switch format {
        case .json: try printJSONReport(report)
        case .markdown: print(report.markdown)
        }
    }
}

extension PhotoBench {
    /// Copies of the first view of each object, printed and hashed, grouped with them and the other views: by
    /// print at each threshold, by hash at each Hamming distance, and by either (the hash at the catalog's
    /// distance); plus, for the last, the threshold of the highest recall at precision ≥ 0.99 on a 0.005 grid.
    func measureNearDuplicates(
        _ decoded: [PixelBuffer], groups: [Int], prints: [[Float]], hashes: [PerceptualHash], context: RenderContext
    ) throws -> [PhotoBenchReport.NearDuplicates] {
        let printer = try PhotoPrinter(context: context)
        var items = decoded.indices.map { index in
            NearDuplicateScore.Item(
                object: groups[index], family: groups.firstIndex(of: groups[index]) == index ? index : nil, copy: nil)
        }
        var allPrints = prints.flatMap { $0 }, allHashes = hashes
        for original in decoded.indices where items[original].family == original {
            progress("printing copies of photo \(original + 1) of \(decoded.count)")
            let copies = try PhotoCopy.allCases.map { try $0.make(of: decoded[original], context: context) }
            allPrints += try printer.prints(of: copies).flatMap { $0 }
            allHashes += try PerceptualHash.hashes(
                ofGray: copies.map { try context.grayPlane(of: $0) }, context: context)
            items += PhotoCopy.allCases.map { .init(object: groups[original], family: original, copy: $0) }
        }
        let count = items.count
        func row(_ method: String, _ threshold: Float, _ pairs: [(Int, Int)]) -> PhotoBenchReport.NearDuplicates {
            let score = NearDuplicateScore(groups: DuplicateGroups.groups(count: count, pairs: pairs), items: items)
            return .init(method: method, threshold: threshold, photos: count, score: score)
        }
        func printPairs(_ threshold: Float) throws -> [(Int, Int)] {
            try ClosePrints.pairs(in: allPrints, count: count, threshold: threshold, context: context)
        }
        let hashDistance = DuplicateGroups.hashDistance
        let hashPairs = PerceptualHash.pairs(in: allHashes, within: hashDistance)
        let either = "print, cosine, or hash within \(hashDistance)"
        var rows = try thresholds.map { row("print, cosine", $0, try printPairs($0)) }
        rows += hammingDistances.map {
            row("64-bit DCT hash, Hamming", Float($0), PerceptualHash.pairs(in: allHashes, within: $0))
        }
        rows += try thresholds.map { row(either, $0, try printPairs($0) + hashPairs) }
        let grid = try stride(from: Float(0.01), through: 0.3, by: 0.005).map {
            row(either, $0, try printPairs($0) + hashPairs)
        }
        if let best = grid.filter({ $0.score.precision >= 0.99 }).max(by: { $0.score.recall < $1.score.recall }) {
            rows.append(
                .init(
                    method: either + " (best recall at precision ≥ 0.99)", threshold: best.threshold,
                    photos: best.photos, score: best.score))
        }
        return rows
    }

    /// Exact grouping (close pairs, then connected components) of `count` random unit prints beside the
    /// linear pass, at the catalog's duplicate threshold.
    func timeGrouping(count: Int, context: RenderContext) throws -> PhotoBenchReport.Grouping {
        progress("grouping \(count) random prints")
        var generator = SeededGenerator(seed: UInt64(count))
        let length = PhotoPrinter.length
        var prints = [Float](repeating: 0, count: count * length)
        for item in 0..<count {
            let values = (0..<length).map { _ in Float.random(in: -1...1, using: &generator) }
            let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
            for i in 0..<length { prints[item * length + i] = values[i] / norm }
        }
        let threshold = DuplicateGroups.printThreshold
        var exactGroups = 0, linearGroups = 0
        PeakMemory.reset()
        let exact = try medianSeconds(runs: runs) {
            let pairs = try ClosePrints.pairs(in: prints, count: count, threshold: threshold, context: context)
            exactGroups = DuplicateGroups.groups(count: count, pairs: pairs).count
        }
        let memory = PeakMemory.megabytes()
        let linear = medianSeconds(runs: runs) {
            linearGroups = LinearPass.groups(of: prints, count: count, threshold: threshold).count
        }
        return .init(
            prints: count, source: "random unit vectors", threshold: threshold, exactSeconds: exact,
            exactGroups: exactGroups, linearSeconds: linear, linearGroups: linearGroups, peakMemoryMB: memory)
    }
}

extension PhotoBenchReport.Retrieval {
    init(method: String, _ score: RetrievalScore, _ photos: Int) {
        self.init(
            method: method, photos: photos, nsScore: score.nsScore, meanAveragePrecision: score.meanAveragePrecision)
    }
}

/// Progress for a person watching; the table goes to standard output.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("photo-bench: \(message)\n".utf8))
}
