import BenchmarkSupport
import FaceRecognition
import ImageKernels
import ReferenceFilters

/// One timing: seconds per query for a matcher, path and device on a gallery of some size.
struct SpeedRow: Encodable {
    let matcher: String
    let path: String
    let device: String
    let bins: Int
    let galleryFaces: Int
    let secondsPerQuery: Double
    let runs: Int
    let bytesPerFace: Int
}

/// Times searches: the reference scenario (400 images × 2 faces, 8×8 grid) at 256 and 59 bins for
/// every matcher × path × device against the naive loop, then how the fused kernel scales.
struct SpeedBenchmark {
    let devices: [Device]
    let runs: Int
    let quick: Bool
    /// Real descriptors to fill galleries with: the 400 ORL faces, per bin count.
    let faces: [Int: [FaceDescriptor]]
    let probe: [Int: FaceDescriptor]

    static let matchers: [Matcher] = [.weightedChiSquare, .restrictedNBNN, .nbnn]

    func run() throws -> [SpeedRow] {
        var rows: [SpeedRow] = []
        for bins in [256, 59] {
            rows += try compareAllPaths(bins: bins, faceCount: 800)
        }
        let sizes: [(Matcher, [Int])] =
            quick
            ? [(.weightedChiSquare, [10_000]), (.restrictedNBNN, [10_000]), (.nbnn, [1_000])]
            : [
                (.weightedChiSquare, [1_000, 10_000, 100_000]), (.restrictedNBNN, [1_000, 10_000, 100_000]),
                (.nbnn, [1_000, 10_000]),
            ]
        for size in Set(sizes.flatMap(\.1)).sorted() {
            let matchers = sizes.filter { $0.1.contains(size) }.map(\.0)
            rows += try scale(bins: 59, faceCount: size, matchers: matchers)
        }
        return rows
    }

    private func entries(bins: Int, count: Int) -> [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)] {
        let source = faces[bins] ?? []
        return (0..<count).map { (source[$0 % source.count], FaceID(Int64($0)), ImageID(Int64($0 / 2))) }
    }

    private func gallery(
        on device: Device, bins: Int, entries: [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)],
        context: RenderContext? = nil
    ) throws -> Gallery {
        let gallery = Gallery(
            parameters: entries[0].descriptor.parameters, context: context ?? RenderContext(device: device))
        try gallery.append(entries)
        return gallery
    }

    private func compareAllPaths(bins: Int, faceCount: Int) throws -> [SpeedRow] {
        let entries = entries(bins: bins, count: faceCount)
        guard let probe = probe[bins] else { return [] }
        let bytesPerFace = (probe.parameters.length + probe.parameters.blockCount) * 4
        var rows: [SpeedRow] = []
        let contexts = devices.map { RenderContext(device: $0) }
        let galleries = try zip(devices, contexts).map {
            try gallery(on: $0, bins: bins, entries: entries, context: $1)
        }
        for matcher in Self.matchers {
            let options = SearchOptions(matcher: matcher, weights: .uniform())
            let slowRuns = quick ? 1 : (matcher == .nbnn ? 3 : runs)
            progress("\(bins) bins, \(faceCount) faces, \(matcher.rawValue): naive loop")
            let naive = medianSeconds(runs: slowRuns) { _ = Reference.search(probe, in: entries, options: options) }
            rows.append(
                SpeedRow(
                    matcher: matcher.rawValue, path: "naive", device: "single thread", bins: bins,
                    galleryFaces: faceCount, secondsPerQuery: naive, runs: slowRuns, bytesPerFace: bytesPerFace))
            for (device, (gallery, context)) in zip(devices, zip(galleries, contexts)) {
                for path in SearchPath.allCases {
                    progress(
                        "\(bins) bins, \(faceCount) faces, \(matcher.rawValue): \(path.rawValue) on \(device.kind)")
                    var options = options
                    options.path = path
                    var top = TopImages(10)
                    let seconds = try medianSeconds(runs: path == .fused ? runs : slowRuns) {
                        try gallery.search(probe, options: options, into: &top)
                    }
                    rows.append(
                        SpeedRow(
                            matcher: matcher.rawValue, path: path.rawValue, device: "\(device.kind)", bins: bins,
                            galleryFaces: faceCount, secondsPerQuery: seconds,
                            runs: path == .fused ? runs : slowRuns, bytesPerFace: bytesPerFace))
                }
                guard let shapes = device.otherShapes else { continue }
                progress(
                    """
                    \(bins) bins, \(faceCount) faces, \(matcher.rawValue): fused on \(device.kind), \
                    \(shapes.name)-shaped
                    """
                )
                context.useSchedules(of: shapes.kind)
                defer { context.useSchedules(of: nil) }
                var top = TopImages(10)
                let seconds = try medianSeconds(runs: runs) { try gallery.search(probe, options: options, into: &top) }
                rows.append(
                    SpeedRow(
                        matcher: matcher.rawValue, path: "fused", device: "\(device.kind), \(shapes.name)-shaped",
                        bins: bins,
                        galleryFaces: faceCount, secondsPerQuery: seconds, runs: runs, bytesPerFace: bytesPerFace))
            }
        }
        return rows
    }

    private func scale(bins: Int, faceCount: Int, matchers: [Matcher]) throws -> [SpeedRow] {
        let entries = entries(bins: bins, count: faceCount)
        guard let probe = probe[bins] else { return [] }
        let bytesPerFace = (probe.parameters.length + probe.parameters.blockCount) * 4
        var rows: [SpeedRow] = []
        for device in devices {
            progress("\(bins) bins, \(faceCount) faces: filling the gallery on \(device.kind)")
            let gallery = try gallery(on: device, bins: bins, entries: entries)
            for matcher in matchers {
                progress("\(bins) bins, \(faceCount) faces, \(matcher.rawValue): fused on \(device.kind)")
                var top = TopImages(10)
                let seconds = try medianSeconds(runs: runs) {
                    try gallery.search(probe, options: SearchOptions(matcher: matcher), into: &top)
                }
                rows.append(
                    SpeedRow(
                        matcher: matcher.rawValue, path: "fused", device: "\(device.kind)", bins: bins,
                        galleryFaces: faceCount, secondsPerQuery: seconds, runs: runs, bytesPerFace: bytesPerFace))
            }
        }
        // The naive loop at the smaller sizes, for the ratios.
        for matcher in matchers where !quick && (faceCount <= 10_000 || matcher != .nbnn) {
            let options = SearchOptions(matcher: matcher)
            let naiveRuns = matcher == .nbnn || faceCount >= 100_000 ? 1 : 3
            progress("\(bins) bins, \(faceCount) faces, \(matcher.rawValue): naive loop")
            let naive = medianSeconds(runs: naiveRuns) { _ = Reference.search(probe, in: entries, options: options) }
            rows.append(
                SpeedRow(
                    matcher: matcher.rawValue, path: "naive", device: "single thread", bins: bins,
                    galleryFaces: faceCount, secondsPerQuery: naive, runs: naiveRuns, bytesPerFace: bytesPerFace))
        }
        return rows
    }
}
