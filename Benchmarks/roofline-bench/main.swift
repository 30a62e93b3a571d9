import BenchmarkSupport
import FaceDetection
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels
import NeuralNetworks
import PhotoSimilarity

// roofline-bench: where the networks of `cbir index` stand against this machine's limits. It measures the
// machine's peaks first (multiply-adds from registers, bytes copied through memory, on every core), then runs
// each network as indexing runs it on the CPU device (EfficientNet-Lite0 on a batch of photos, BlazeFace on
// the photos together, dlib's ResNet on their faces' chips), times every layer (`RenderContext.timingFilters`), and
// prints a table per network by kind of layer: multiply-adds, bytes read and written, time, and the
// GFLOP/s and GB/s reached against the peaks. --layers also lists every layer.

let options = UsageOptions(usage: "roofline-bench [--runs 5] [--photos 8] [--datasets ../shared/datasets] [--layers]")
let runs = options.value("--runs").flatMap(Int.init) ?? 5
let photoCount = options.value("--photos").flatMap(Int.init) ?? 8
let folder = (options.value("--datasets") ?? "../shared/datasets") + "/wild-photos"

// MARK: The machine's peaks

/// Multiply-adds a second on every core: twelve independent vector sums held in registers, enough to keep
/// both multiply-add units busy through their latency.
func multiplyAddPeak() -> Double {
    #if FACESEARCH_AVX512
        typealias Vector = SIMD16<Float>
    #else
        typealias Vector = SIMD8<Float>
    #endif
    let cores = ProcessInfo.processInfo.activeProcessorCount, steps = 10_000_000
    let seconds = medianSeconds(runs: runs) {
        DispatchQueue.concurrentPerform(iterations: cores) { core in
            let a = Vector(repeating: 0.999_999), b = Vector(repeating: 1e-7 * Float(core + 1))
            var s0 = b, s1 = b, s2 = b, s3 = b, s4 = b, s5 = b, s6 = b, s7 = b, s8 = b, s9 = b, s10 = b, s11 = b
            for _ in 0..<steps {
                s0.addProduct(a, s0)
                s1.addProduct(a, s1)
                s2.addProduct(a, s2)
                s3.addProduct(a, s3)
                s4.addProduct(a, s4)
                s5.addProduct(a, s5)
                s6.addProduct(a, s6)
                s7.addProduct(a, s7)
                s8.addProduct(a, s8)
                s9.addProduct(a, s9)
                s10.addProduct(a, s10)
                s11.addProduct(a, s11)
            }
            let sums = [s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11]
            if sums.reduce(0, { $0 + $1.sum() }).isNaN { print("") }  // keeps the sums alive
        }
    }
    return Double(cores * steps * 12 * Vector.scalarCount) / seconds
}

/// Multiply-adds a second on every core of the register tile that every convolution's product runs
/// (``WideRegisterTile`` where there is AVX-512, else ``RegisterTile``), alone: filters of `depth` values
/// against one packed tile of sixteen columns, all of them in the first-level cache. What the layers reach
/// beyond it is lost outside the tile (packing, stores, the depthwise sums, the caches).
func registerTilePeak(depth: Int = 144) -> Double {
    #if FACESEARCH_AVX512
        let rows = 8
    #else
        let rows = 4
    #endif
    let cores = ProcessInfo.processInfo.activeProcessorCount, tiles = 2_000_000 / depth
    let seconds = medianSeconds(runs: runs) {
        DispatchQueue.concurrentPerform(iterations: cores) { core in
            // Two blocks of filters taken in turn, so that no tile's sums are those of the tile before.
            let weights = UnsafeMutablePointer<Float>.allocate(capacity: 2 * rows * depth)
            let low = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: depth)
            let high = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: depth)
            defer { (weights.deallocate(), low.deallocate(), high.deallocate()) }
            for index in 0..<2 * rows * depth { weights[index] = Float(index % 7) * 1e-3 }
            for k in 0..<depth {
                (low[k], high[k]) = (SIMD8(repeating: Float(core + 1) * 1e-3), SIMD8(repeating: 2e-3))
            }
            var total = SIMD8<Float>()
            for index in 0..<tiles {
                let filters = weights + index % 2 * rows * depth
                #if FACESEARCH_AVX512
                    let tile = WideRegisterTile(rows: filters, stride: depth, low: low, high: high, depth: depth)
                    for row in 0..<rows { total += tile.sums(row: row).lowHalf + tile.sums(row: row).highHalf }
                #else
                    let tile = RegisterTile(
                        filters, filters + depth, filters + 2 * depth, filters + 3 * depth, low: low, high: high,
                        depth: depth)
                    for row in 0..<rows { total += tile.sums(row: row, half: 0) + tile.sums(row: row, half: 1) }
                #endif
            }
            if total.sum().isNaN { print("") }  // keeps the sums alive
        }
    }
    return Double(cores * tiles * rows * 16 * depth) / seconds
}

/// Bytes a second read and written by copies of `bytes` a core, on every core at once.
func copyPeak(bytes: Int) -> Double {
    let cores = ProcessInfo.processInfo.activeProcessorCount, repeats = max(1, (256 << 20) / bytes)
    let sources = (0..<cores).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64) }
    let targets = (0..<cores).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64) }
    defer { for pointer in sources + targets { pointer.deallocate() } }
    for pointer in sources + targets { pointer.initializeMemory(as: UInt8.self, repeating: 1, count: bytes) }
    nonisolated(unsafe) let (from, to) = (sources, targets)
    let seconds = medianSeconds(runs: runs) {
        DispatchQueue.concurrentPerform(iterations: cores) { core in
            for _ in 0..<repeats { to[core].copyMemory(from: from[core], byteCount: bytes) }
        }
    }
    return Double(2 * bytes * repeats * cores) / seconds
}

// MARK: Layers

/// A layer's kind, for the tables, and its multiply-adds.
func work(of time: FilterTime) -> (kind: String, multiplyAdds: Int) {
    let output = time.output, outputs = output.batch * output.channels * output.height * output.width
    switch time.filter {
    case let c as Convolution:
        let input = time.inputs[0], taps = c.kernelWidth * c.kernelHeight
        let kind =
            c.groups == input.channels && c.groups > 1
            ? "depthwise \(c.kernelWidth)×\(c.kernelHeight)"
            : taps == 1 ? "1×1" : "dense \(c.kernelWidth)×\(c.kernelHeight)"
        return (kind, outputs * input.channels / c.groups * taps)
    case let s as SeparableConvolution:
        // The depthwise channels: the expansion's where it expands (its filters are the second input).
        let input = time.inputs[0], pixels = output.batch * output.height * output.width
        let channels = s.expands ? time.inputs[1].height : input.channels
        let expansion = s.expands ? input.batch * input.height * input.width * input.channels * channels : 0
        return (
            "\(s.expands ? "1×1 + " : "")depthwise \(s.kernelWidth)×\(s.kernelHeight) + 1×1",
            expansion + pixels * channels * (s.kernelWidth * s.kernelHeight + output.channels)
        )
    case is FullyConnected:
        let weights = time.inputs[1]
        return ("fully connected", time.inputs[0].batch * weights.width * weights.height)
    case let p as Pooling:
        return (p.name, 0)
    default:
        // The filter's name up to its sizes or a comma: "resize area → 256×341" is a "resize area".
        let name = time.filter.name.prefix { $0 != "," }
        let words = name.split(separator: " ").prefix { word in
            !(word.first.map { $0.isNumber || "(→×".contains($0) } ?? true)
        }
        return (words.joined(separator: " "), 0)
    }
}

/// The bytes a layer reads and writes at the least: its inputs (weights among them) and its output once.
func bytes(of time: FilterTime) -> Int { time.inputs.map(\.byteCount).reduce(time.output.byteCount, +) }

/// Each layer's median time over `runs` runs of `body` (after one unmeasured run), in the order of the first.
func profile(_ context: RenderContext, _ body: () throws -> Void) throws -> [(FilterTime, Double)] {
    try body()
    var layers: [FilterTime] = [], seconds: [[Double]] = []
    for _ in 0..<runs {
        let (_, times) = try context.timingFilters { () throws -> Void in try body() }
        if layers.isEmpty {
            layers = times
            seconds = times.map { [$0.seconds] }
        } else {
            for (index, time) in times.enumerated() where index < seconds.count { seconds[index].append(time.seconds) }
        }
    }
    return zip(layers, seconds).map { ($0, $1.sorted()[$1.count / 2]) }
}

let flopPeak = multiplyAddPeak() * 2
let memoryPeak = copyPeak(bytes: 64 << 20), cachePeak = copyPeak(bytes: 256 << 10)
let tilePeak = registerTilePeak() * 2

print("# roofline-bench\n")
print("Machine: \(machineDescription()).\n")
print(
    String(
        format: """
            Peaks on every core (medians of %d runs): multiply-adds %.1f GFLOP/s (independent vector sums); copies \
            %.1f GB/s through memory (64 MB a core), %.1f GB/s within the caches (256 KB a core), read and \
            written bytes counted.\n
            """, runs, flopPeak / 1e9, memoryPeak / 1e9, cachePeak / 1e9))
print(
    String(
        format: """
            The products' register tile alone (filters of 144 values against a packed tile of 16 columns, in the \
            first-level cache): %.1f GFLOP/s, %.0f %% of the peak.\n
            """, tilePeak / 1e9, 100 * tilePeak / flopPeak))

let context = RenderContext(device: .cpu)
let names = (FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? [])
    .filter { $0.hasSuffix(".jpg") }.sorted().prefix(photoCount)
let decoding = DecodingOptions(minimumLongSide: 640, maximumAspectRatio: 100)
/// Each photo decoded as indexing decodes it, with the smallest face indexing searches it for (80 pixels of the
/// file, or an eighth of its shorter side), in the decoded pixels.
let photos = try names.map { name in
    let bytes = try ImageDecoder.contents(of: folder + "/" + name)
    let photo = try ImageDecoder.decode(bytes, path: name, options: decoding)
    let scale = Double(ImageDecoder.reduction(of: bytes, options: decoding))
    let shortSide = Double(min(photo.descriptor.width, photo.descriptor.height)) * scale
    return (photo, max(1, Int((FaceSize.smallest(minimum: 80, shortSide: shortSide) / scale).rounded())))
}
guard !photos.isEmpty else {
    FileHandle.standardError.write(Data("roofline-bench: no photos in \(folder)\n".utf8))
    exit(1)
}
let printer = try PhotoPrinter(context: context)
let detector = try BlazeFaceDetector(model: .fullRange, context: context)
let embedder = try FaceEmbedder(context: context)
func faces(of photo: (PixelBuffer, Int)) throws -> [FaceObservation] {
    try detector.faces(in: photo.0, gray: nil, minimumFaceSize: photo.1)
}
let faced = try photos.map { ($0.0, try faces(of: $0).map(\.landmarkBox)) }
let faceCount = faced.map(\.1.count).reduce(0, +)

let networks: [(name: String, size: String, run: () throws -> Void)] = [
    (
        "EfficientNet-Lite0 (prints)", "\(photos.count) photos in runs of \(PhotoPrinter.maximumBatch), 224 × 224",
        { _ = try printer.prints(of: photos.map(\.0)) }
    ),
    (
        "BlazeFace full range (faces)",
        "\(photos.count) photos together, 192 × 192 squares in runs of \(BlazeFaceDetector.maximumBatch), as indexing "
            + "searches them",
        {
            _ = try detector.faces(in: photos.map { FaceSearchRequest(photo: $0.0, minimumFaceSize: $0.1) }).map {
                try $0.get()
            }
        }
    ),
    (
        "dlib ResNet (embeddings)", "\(faceCount) faces of those photos in one batch, 150 × 150 chips",
        { _ = try embedder.embeddings(ofFaces: faced) }
    ),
]

for network in networks {
    let layers = try profile(context, network.run)
    var kinds: [String: (layers: Int, multiplyAdds: Int, bytes: Int, seconds: Double)] = [:], order: [String] = []
    for (time, seconds) in layers {
        let (kind, multiplyAdds) = work(of: time)
        if kinds[kind] == nil { order.append(kind) }
        let sum = kinds[kind] ?? (0, 0, 0, 0)
        kinds[kind] = (
            sum.layers + 1, sum.multiplyAdds + multiplyAdds, sum.bytes + bytes(of: time), sum.seconds + seconds
        )
    }
    let total = kinds.values.reduce(into: (multiplyAdds: 0, seconds: 0.0)) {
        $0.multiplyAdds += $1.multiplyAdds
        $0.seconds += $1.seconds
    }
    print("## \(network.name): \(network.size)\n")
    print(
        String(
            format: "%.2f G multiply-adds in %.1f ms: %.1f GFLOP/s, %.0f %% of the peak.\n",
            Double(total.multiplyAdds) / 1e9, total.seconds * 1e3,
            2 * Double(total.multiplyAdds) / total.seconds / 1e9,
            100 * 2 * Double(total.multiplyAdds) / total.seconds / flopPeak))
    print(
        "| layers | count | M multiply-adds | MB moved | ms | share of time | GFLOP/s | % of peak | GB/s "
            + "| % of memory's |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in order.sorted(by: { kinds[$0]!.seconds > kinds[$1]!.seconds }) {
        guard let k = kinds[kind] else { continue }
        let flops = 2 * Double(k.multiplyAdds) / k.seconds, rate = Double(k.bytes) / k.seconds
        print(
            String(
                format: "| %@ | %d | %.1f | %.1f | %.2f | %.0f %% | %@ | %@ | %.1f | %.0f %% |", kind, k.layers,
                Double(k.multiplyAdds) / 1e6, Double(k.bytes) / 1e6, k.seconds * 1e3, 100 * k.seconds / total.seconds,
                k.multiplyAdds > 0 ? String(format: "%.1f", flops / 1e9) : "",
                k.multiplyAdds > 0 ? String(format: "%.0f %%", 100 * flops / flopPeak) : "", rate / 1e9,
                100 * rate / memoryPeak))
    }
    print()
    if options.contains("--layers") {
        print("| # | layer | output | M multiply-adds | MB moved | ms | GFLOP/s | GB/s |")
        print("|---:|---|---|---:|---:|---:|---:|---:|")
        for (index, (time, seconds)) in layers.enumerated() {
            let (kind, multiplyAdds) = work(of: time), o = time.output
            print(
                String(
                    format: "| %d | %@ | %d×%d×%d×%d | %.2f | %.2f | %.3f | %.1f | %.1f |", index, kind, o.batch,
                    o.channels, o.height, o.width, Double(multiplyAdds) / 1e6, Double(bytes(of: time)) / 1e6,
                    seconds * 1e3, 2 * Double(multiplyAdds) / seconds / 1e9, Double(bytes(of: time)) / seconds / 1e9))
        }
        print()
    }
}

// MARK: Inverted-residual blocks

/// EfficientNet-Lite0's blocks (at batch 4, as prints run) whose expansion the separable twin forms itself (rows of
/// whole vectors of eight), and the 28-wide one it leaves to a layer of its own: batch, input channels, side,
/// expanded and output channels, kernel and stride.
let blocks = [
    (4, 16, 112, 96, 24, 3, 2), (4, 24, 56, 144, 24, 3, 1), (4, 24, 56, 144, 40, 5, 2), (4, 40, 28, 240, 40, 5, 1),
]
print("## Inverted-residual blocks: the expansion as a layer of its own, and formed in the separable twin\n")
print("Random weights, ReLU6 after each half; medians of \(runs * 5) runs of each form, in turn.\n")
print("| block | ms, two layers | ms, one layer | one ÷ two | the same floats |")
print("|---|---:|---:|---:|---|")
for (batch, inChannels, side, channels, outChannels, kernel, stride) in blocks {
    func tensor(_ width: Int, _ height: Int, _ planes: Int = 1, _ batch: Int = 1) throws -> Image {
        let count = width * height * planes * batch
        return Image(
            try PixelBuffer(
                width: width, height: height, channels: planes, batch: batch,
                values: (0..<count).map { _ in Float.random(in: -1..<1) }))
    }
    let x = Image(try context.render(try tensor(side, side, inChannels, batch)))
    let expansion = [try tensor(inChannels, channels), try tensor(channels, 1)]
    let separable =
        [try tensor(kernel * kernel, channels), try tensor(channels, 1)]
        + [try tensor(channels, outChannels), try tensor(outChannels, 1)]
    func layer(expands: Bool) -> SeparableConvolution {
        SeparableConvolution(
            kernelWidth: kernel, kernelHeight: kernel, strideX: stride, strideY: stride, paddingX: kernel / 2,
            paddingY: kernel / 2, expands: expands, expansionCeiling: 6, depthwiseCeiling: 6, ceiling: 6,
            method: .fused)
    }
    let forms = [
        x.convolved(
            filters: expansion[0], biases: expansion[1], kernelWidth: 1, kernelHeight: 1, rectified: true, ceiling: 6
        ).applying(layer(expands: false), with: separable),
        x.applying(layer(expands: true), with: expansion + separable),
    ]
    let outputs = try forms.map { try context.render($0).floatValues }
    var seconds: [[Double]] = [[], []]
    for _ in 0..<runs * 5 {
        for (index, form) in forms.enumerated() {
            let (_, times) = try context.timingFilters { try context.render(form) }
            seconds[index].append(times.map(\.seconds).reduce(0, +))
        }
    }
    let medians = seconds.map { $0.sorted()[$0.count / 2] * 1e3 }
    print(
        String(
            format: "| %d × %d × %d, %d → %d → %d channels, %d × %d/%d | %.2f | %.2f | %.2f | %@ |", batch, side, side,
            inChannels, channels, outChannels, kernel, kernel, stride, medians[0], medians[1], medians[1] / medians[0],
            outputs[0] == outputs[1] ? "yes" : "**no**"))
}
