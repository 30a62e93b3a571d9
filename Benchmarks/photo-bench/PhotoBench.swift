import ArgumentParser
import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import NeuralNetworks
import PhotoSimilarity

/// `photo-bench`: how well and how fast whole photos are compared. On a UKBench-style folder (photos
/// numbered so that number ÷ 4 is the object), the N-S score and mAP of the photo print (at each input
/// layout), the perceptual hash and a colour-histogram baseline, in one run; and prints per second,
/// decoding included, per device and batch size.
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

    func validate() throws {
        guard runs >= 1, timedPhotos >= 1, batches.allSatisfy({ $0 >= 1 }), !layouts.isEmpty else {
            throw ValidationError("runs, timed photos and batches ≥ 1, and a layout, please")
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

        var retrieval: [PhotoBenchReport.Retrieval] = []
        for layout in layouts.compactMap(Self.layout) {
            progress("printing at \(layout.side) after \(layout.resized)")
            let printer = try PhotoPrinter(inputSize: layout.side, resizedSide: layout.resized, context: context)
            let prints = try printer.prints(of: decoded)
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
        let report = PhotoBenchReport(machine: machine, runs: runs, retrieval: retrieval, speed: speed)
        switch format {
        case .json: try printJSONReport(report)
        case .markdown: print(report.markdown)
        }
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
