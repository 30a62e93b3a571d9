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

    @Option(
        help: """
            A folder of folders of distinct photos (Caltech-101's), for duplicates on look-alikes: no two are copies, \
            and copies are made of the first two of each folder.
            """)
    var collection = "../shared/datasets/caltech-dev"

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

    @Option(parsing: .upToNextOption, help: "Counts of random prints to time grouping on.")
    var groupingSizes: [Int] = [10_000, 100_000]

    @Option(
        parsing: .upToNextOption,
        help: "UKBench-style folders to score the sharper ranking on, each alone and together; the first tunes it.")
    var expansionSets = ["../shared/datasets/ukbench-dev", "../shared/datasets/ukbench-val"]

    @Option(help: "A folder of folders of unrelated photos, added to the sets together as distractors.")
    var expansionDistractors = "../shared/datasets/caltech-dev"

    @Flag(help: "Only the sharper ranking's tables (power normalisation, augmentation, query expansion).")
    var expansionOnly = false

    func validate() throws {
        guard runs >= 1, timedPhotos >= 1, batches.allSatisfy({ $0 >= 1 }), !layouts.isEmpty,
            groupingSizes.allSatisfy({ $0 >= 2 })
        else {
            throw ValidationError("runs, timed photos and batches ≥ 1, grouping sizes ≥ 2, and a layout, please")
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
        let expansion = try ExpansionBench(
            folders: expansionSets, distractors: expansionDistractors,
            printer: PhotoPrinter(context: RenderContext(device: devices[0]))
        ).rows()
        guard !expansionOnly else {
            let report = PhotoBenchReport(
                machine: machineDescription(), runs: runs, retrieval: [], nearDuplicates: [], grouping: [], speed: [],
                expansion: expansion.steps, expansionGrid: expansion.grid)
            switch format {
            case .json: try printJSONReport(report)
            case .markdown: print(report.markdown)
            }
            return
        }
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

        let nearDuplicates = try measureNearDuplicates(decoded, files: files, groups: groups, context: context)
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
            speed: speed, expansion: expansion.steps, expansionGrid: expansion.grid)
        switch format {
        case .json: try printJSONReport(report)
        case .markdown: print(report.markdown)
        }
    }
}

extension PhotoBench {
    /// Near-duplicates in two sets: the UKBench folder (copies of the first view of each object, among the
    /// other views), and the collection (copies of the first two photos of each folder, among all its photos,
    /// every one a different picture of a look-alike thing: motorbikes in one pose, cars from the side).
    func measureNearDuplicates(_ decoded: [PixelBuffer], files: [String], groups: [Int], context: RenderContext)
        throws -> [PhotoBenchReport.NearDuplicates]
    {
        let printer = try PhotoPrinter(context: context)
        let ukbench = try NearDuplicateSet(
            name: "UKBench", photos: decoded, names: files, objects: groups,
            originals: decoded.indices.filter { groups.firstIndex(of: groups[$0]) == $0 }, printer: printer,
            context: context)
        var rows = try ukbench.rows(context: context)
        guard FileManager.default.fileExists(atPath: collection) else {
            progress("no collection at \(collection): its rows are left out")
            return rows
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: collection).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: collection + "/" + $0, isDirectory: &isFolder)
                && isFolder.boolValue
        }.sorted()
        var names: [String] = [], originals: [Int] = []
        for folder in folders {
            let files = try FileManager.default.contentsOfDirectory(atPath: collection + "/" + folder).filter {
                $0.lowercased().hasSuffix(".jpg")
            }.sorted()
            originals += (names.count..<names.count + min(2, files.count))
            names += files.map { folder + "/" + $0 }
        }
        guard !names.isEmpty else { return rows }
        progress("decoding \(names.count) photos of \(collection)")
        let photos = try names.map { try ImageDecoder.decode(contentsOf: collection + "/" + $0) }
        // Each photo is its own object, but for two pairs of Caltech-101's own copies: one picture at two
        // sizes, and one chart at two sizes, its labels set again.
        let sameAs = [
            "BACKGROUND_Google/image_0040.jpg": "BACKGROUND_Google/image_0039.jpg",
            "BACKGROUND_Google/image_0030.jpg": "BACKGROUND_Google/image_0029.jpg",
        ]
        let objects = names.indices.map { index in sameAs[names[index]].flatMap(names.firstIndex(of:)) ?? index }
        let caltech = try NearDuplicateSet(
            name: (collection as NSString).lastPathComponent, photos: photos, names: names, objects: objects,
            originals: originals, printer: printer, context: context)
        rows += try caltech.rows(context: context)
        return rows
    }

    /// Grouping copies (close pairs by print and by hash, the pixels of the pairs compared, groups around
    /// centres) of `count` random unit prints and random hashes, beside the linear pass at the same print
    /// threshold. Random prints and hashes have no pairs: this times finding them.
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
        let hashes = (0..<count).map { _ in PerceptualHash(bits: UInt64.random(in: 0...UInt64.max, using: &generator)) }
        let copies = [DuplicateGroups.Copy](repeating: .init(pixels: 1, sharpness: 1, bytes: 1), count: count)
        var exactGroups = 0, linearGroups = 0
        PeakMemory.reset()
        let exact = try medianSeconds(runs: runs) {
            let links = try DuplicateGroups.copies(
                prints: prints, hashes: hashes, identical: [], context: context, plane: { _ in nil })
            exactGroups = DuplicateGroups.groups(links: links, copies: copies).count
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
