import ArgumentParser
import BenchmarkSupport
import FaceDetection
import FaceRecognition
import Foundation
import ImageKernels

/// `nbnn-bench`: search speed of every matcher, path and device against the naive loop, embedding speed
/// per device and batch (beside dlib's own when its virtual environment exists), and rank-1 accuracy of
/// every matcher, the embedding included, on ORL (or any folder of people).
@main
struct NBNNBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbnn-bench",
        abstract: "Time chi-square and NBNN face search, and measure rank-1 accuracy.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case markdown, json }

    @Flag(help: "Finish in under a minute: the reference scenario and the 5/5 protocol only.")
    var quick = false

    @Option(help: "Devices to time: cpu, opencl or all.")
    var device: DeviceSelection = .all

    @Option(help: "markdown tables or one JSON object.")
    var format: Format = .markdown

    @Option(help: "Timed runs per figure (median reported).")
    var runs = 5

    @Option(help: "Folder of the shared datasets.")
    var datasets = "../shared/datasets"

    @Option(help: "Measure accuracy on this folder of person sub-folders instead of ORL.")
    var dataset: String?

    @Option(help: "With --dataset: gallery images per person (the first K in name order); the rest are probes.")
    var galleryPerPerson = 1

    @Flag(help: "Before describing, find the largest face of each image and crop it aligned (eyes level).")
    var detect = false

    @Option(
        help: """
            The face finder of --detect, and of the embeddings' face boxes: \
            \(DetectorChoice.names.joined(separator: ", ")) (default: \(DetectorChoice.default)).
            """,
        transform: DetectorChoice.argument)
    var detector = DetectorChoice.default

    @Flag(help: "Skip the speed tables.")
    var accuracyOnly = false

    @Flag(help: "Skip the accuracy tables.")
    var speedOnly = false

    struct Output: Encodable {
        let machine: String
        let speed: [SpeedRow]
        let embeddingSpeed: [EmbeddingSpeedRow]
        let accuracy: [AccuracyRow]
        /// With --detect: images where no face was found, left out of the accuracy figures.
        let missedDetections: Int?
        /// With --detect: the embedding's wrong answers per protocol, by the stage that failed.
        let detectionFailures: [DetectionFailures]?
        /// The embedding's rank-1 with one stage done another way (``StageBenchmark``), on the fewest gallery faces.
        let stages: [StageRow]
    }

    func run() throws {
        let devices = device.devices(progress: progress)
        guard !devices.isEmpty else { throw ValidationFailure("no device to time") }
        let orl = try FaceSet(folder: datasets + "/orl")

        var speed: [SpeedRow] = [], embeddingSpeed: [EmbeddingSpeedRow] = []
        if !accuracyOnly {
            embeddingSpeed = try EmbeddingBenchmark(faces: orl.faces.flatMap { $0 }, runs: runs).speed(
                devices: devices, batches: quick ? [16] : [1, 16, 64])
            var faces: [Int: [FaceDescriptor]] = [:], probes: [Int: FaceDescriptor] = [:]
            for parameters in [DescriptorParameters.standard, DescriptorParameters(uniform: true)] {
                let describer = try FaceDescriber(parameters: parameters, context: RenderContext(device: .cpu))
                let all = try orl.people.flatMap { try describer.describe($0.images) }
                faces[parameters.bins] = all
                probes[parameters.bins] = all.last
            }
            speed = try SpeedBenchmark(devices: devices, runs: runs, quick: quick, faces: faces, probe: probes).run()
        }

        var accuracy: [AccuracyRow] = [], missed: Int?, failures: [DetectionFailures]?, stages: [StageRow] = []
        if !speedOnly {
            let fastest = fastestDevice(devices, speed)
            let context = RenderContext(device: fastest)
            var set = try dataset.map { try FaceSet(folder: $0) } ?? orl
            let finder = try detector.finder(context: context)
            if detect {
                let found = try set.largestFaces(
                    finder: finder, context: context, size: DescriptorParameters.standard.faceSize)
                progress("\(set.name): no face found in \(found.missed) image\(found.missed == 1 ? "" : "s"), left out")
                set = found.set
                missed = found.missed
            } else {
                set = try set.withFaceBoxes(finder: finder, context: context)
            }
            let protocols = dataset != nil ? [galleryPerPerson] : quick ? [5] : [5, 1]
            let embedding = try EmbeddingBenchmark.accuracy(
                set: set, protocols: protocols, finder: detect ? finder : nil, context: context)
            accuracy = embedding.rows
            failures = detect ? embedding.failures : nil
            stages = try StageBenchmark.rows(
                set: set, galleryPerPerson: protocols.min() ?? 1, embedder: try FaceEmbedder(context: context))
            accuracy += try AccuracyBenchmark(set: set, context: context, protocols: protocols, quick: quick).run()
        }

        let output = Output(
            machine: machineDescription() + "; OpenCL: " + (devices.first { $0.kind != .cpu }?.name ?? "none"),
            speed: speed, embeddingSpeed: embeddingSpeed, accuracy: accuracy, missedDetections: missed,
            detectionFailures: failures, stages: stages)
        switch format {
        case .json:
            try printJSONReport(output)
        case .markdown:
            print(Report.markdown(output, runs: runs))
        }
    }

    /// The device with the smaller fused full-NBNN time in the reference scenario (the CPU when untimed).
    private func fastestDevice(_ devices: [Device], _ speed: [SpeedRow]) -> Device {
        devices.min { a, b in
            func time(_ d: Device) -> Double {
                speed.first {
                    $0.device == "\(d.kind)" && $0.path == "fused" && $0.matcher == "nbnn" && $0.galleryFaces == 800
                }?
                .secondsPerQuery ?? .infinity
            }
            return time(a) < time(b)
        } ?? .cpu
    }
}
