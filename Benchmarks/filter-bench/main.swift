import BenchmarkSupport
// filter-bench: the face chain (gamma → DoG → Tan–Triggs → LBP → 8×8 block histograms) over a batch
// of 128×128 faces on each device and as a naive single-threaded Swift loop, JPEG decoding at full
// size vs DCT-scaled, PNG decoding by ImageCodecs' own reader vs libpng, and the affine warps indexing makes.
// Medians of several runs after a warm-up; ratios within one run.
//
//   swift run -c release filter-bench [--faces 1000] [--runs 5] [--datasets ../shared/datasets]
import Foundation
import ImageCodecs
import ImageKernels
import ReferenceFilters

struct Settings {
    var faces = 1000
    var runs = 5
    var naiveFaces = 20
    var datasets = "../shared/datasets"

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            let value = rest.popFirst() ?? ""
            switch flag {
            case "--faces": faces = Int(value) ?? faces
            case "--runs": runs = max(1, Int(value) ?? runs)
            case "--naive-faces": naiveFaces = Int(value) ?? naiveFaces
            case "--datasets": datasets = value
            default:
                print("usage: filter-bench [--faces N] [--runs N] [--naive-faces N] [--datasets DIR]")
                exit(2)
            }
        }
    }
}

func faceChain(_ faces: Image) -> Image {
    faces.gammaAdjusted(0.2).differenceOfGaussians(sigma1: 1, sigma2: 2).contrastEqualized()
        .localBinaryPattern().blockHistograms(gridColumns: 8, gridRows: 8, bins: 256)
}

func naiveFaceChain(_ face: PixelBuffer) -> PixelBuffer {
    var image = Reference.converted(face, to: .float32)
    image = Reference.gammaAdjusted(image, gamma: 0.2)
    image = Reference.differenceOfGaussians(image, sigma1: 1, sigma2: 2)
    image = Reference.contrastEqualized(image)
    return Reference.blockHistograms(Reference.localBinaryPattern(image), gridColumns: 8, gridRows: 8, bins: 256)
}

let settings = Settings(CommandLine.arguments)
do {
    // Real faces: the 400 ORL images, area-resized to 128×128 on the CPU device, repeated to the batch size.
    let orl = (1...40).flatMap { s in (1...10).map { "\(settings.datasets)/orl/s\(s)/\($0).pgm" } }
    let decoded = try orl.map { try ImageDecoder.decode(contentsOf: $0) }
    let resized = try RenderContext(device: .cpu).render(
        Image(try PixelBuffer.batch(decoded)).resized(width: 128, height: 128, method: .area))
    let singles = (0..<decoded.count).map { resized.images($0..<$0 + 1) }
    let batch = try PixelBuffer.batch((0..<settings.faces).map { singles[$0 % singles.count] })

    var devices: [Device] = [.cpu]
    if let openCL = try? Device.select(.opencl) { devices.insert(openCL, at: 0) }

    print("# filter-bench")
    print("Machine: \(machineDescription()); OpenCL: \(devices.first { $0.kind != .cpu }.map(\.name) ?? "none")")
    print(
        """
        Face chain: gamma 0.2 → DoG σ1,2 → Tan–Triggs → LBP 3×3 → 8×8×256 histograms; \(settings.faces) ORL faces \
        of 128×128; median of \(settings.runs) runs after a warm-up\n
        """
    )
    print("| variant | faces | seconds | faces/s | × naive |")
    print("|---|---:|---:|---:|---:|")
    let naiveBatch = Array(singles.prefix(settings.naiveFaces))
    let naiveSeconds = medianSeconds(runs: max(1, settings.runs / 2)) {
        for face in naiveBatch { _ = naiveFaceChain(face) }
    }
    let naiveRate = Double(naiveBatch.count) / naiveSeconds
    for device in devices {
        let context = RenderContext(device: device)
        let chain = faceChain(Image(batch))
        let seconds = try medianSeconds(runs: settings.runs) { _ = try context.render(chain) }
        let rate = Double(settings.faces) / seconds
        print(
            """
            | \(device.kind) (\(device.name)) | \(settings.faces) | \(String(format: "%.3f", seconds)) | \
            \(String(format: "%.0f", rate)) | \(String(format: "%.0f", rate / naiveRate)) |
            """
        )
    }
    print(
        """
        | naive single-threaded Swift (reference) | \(naiveBatch.count) | \(String(format: "%.3f", naiveSeconds)) \
        | \(String(format: "%.1f", naiveRate)) | 1 |
        """
    )

    // JPEG decoding of the wild photos.
    let folder = settings.datasets + "/wild-photos"
    let jpegs = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
        .filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
        .map { folder + "/" + $0 }
    let files = try jpegs.map { path in (path, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))) }
    print(
        """
        \nJPEG decode of \(files.count) wild photos (427×240 to 2000×1428, some progressive), bytes in memory; \
        median of \(settings.runs) runs\n
        """
    )
    /// The median seconds to decode `files` with `options`, and the mean pixels a decode gives.
    func decoding(_ files: [(String, [UInt8])], _ options: DecodingOptions) throws -> (seconds: Double, pixels: Int) {
        var pixels = 0
        let seconds = try medianSeconds(runs: settings.runs) {
            pixels = 0
            for (path, bytes) in files {
                pixels += try ImageDecoder.decode(bytes, path: path, options: options).descriptor.planePixelCount
            }
        }
        return (seconds, pixels / files.count)
    }
    func row(_ label: String, _ decoded: (seconds: Double, pixels: Int), count: Int, base: Double) {
        print(
            """
            | \(label) | \(String(format: "%.2f", decoded.seconds * 1000 / Double(count))) | \(decoded.pixels) \
            | \(String(format: "%.2f", base / decoded.seconds)) |
            """
        )
    }
    print("| decode | ms per photo | mean pixels out | × full |")
    print("|---|---:|---:|---:|")
    var fullSeconds = 0.0
    let variants: [(String, DecodingOptions)] = [
        ("full size, RGB", DecodingOptions()),
        ("full size, gray", DecodingOptions(grayscale: true)),
        ("DCT-scaled, long side ≥ 640, gray", DecodingOptions(grayscale: true, minimumLongSide: 640)),
        ("DCT-scaled, long side ≥ 320, gray", DecodingOptions(grayscale: true, minimumLongSide: 320)),
    ]
    for (label, options) in variants {
        let decoded = try decoding(files, options)
        if fullSeconds == 0 { fullSeconds = decoded.seconds }
        row(label, decoded, count: files.count, base: fullSeconds)
    }

    // PNG decoding: the same photos saved as PNGs, read by ImageCodecs' own reader and by libpng.
    let pngs = try files.map { path, bytes in (path, try ImageEncoder.png(try ImageDecoder.decode(bytes, path: path))) }
    let throughLibpng = pngs.map { path, bytes in (path, PNGBuilder.withSRGBGamma(bytes)) }
    let kilobytes = pngs.reduce(0) { $0 + $1.1.count } / pngs.count / 1000
    print(
        """
        \nPNG decode of the same photos saved as RGB PNGs by libpng (\(kilobytes) KB each), bytes in memory; \
        libpng's rows read the same files with an sRGB gAMA chunk added, which sends them to libpng and changes \
        no pixel; median of \(settings.runs) runs\n
        """
    )
    print("| decode | ms per photo | mean pixels out | × libpng |")
    print("|---|---:|---:|---:|")
    let sizes: [(String, DecodingOptions)] = [
        ("full size", DecodingOptions()),
        ("long side ≥ 640, as indexing decodes", DecodingOptions(minimumLongSide: 640)),
    ]
    for (label, options) in sizes {
        let libpng = try decoding(throughLibpng, options)
        row("\(label), libpng", libpng, count: pngs.count, base: libpng.seconds)
        row("\(label), PlainPNG", try decoding(pngs, options), count: pngs.count, base: libpng.seconds)
    }

    // Affine warps as indexing makes them, on the photos decoded as indexing decodes them.
    let photos = try files.map { path, bytes in
        try ImageDecoder.decode(bytes, path: path, options: DecodingOptions(minimumLongSide: 640))
    }
    print(
        """
        \nAffine warps of the same photos decoded as indexing decodes them (RGB, long side ≥ 640), on the CPU \
        device: BlazeFace's letterbox (the photo scaled into 192 × 192, centred on black) and a face chip (150 × \
        150, turned 0.2 radians about the photo's centre at half size, dlib's blank border, rounded down); \
        "naive" is `ReferenceFilters`, single-threaded; median of \(settings.runs) runs\n
        """
    )
    print("| warp | ms per photo | naive ms | × naive |")
    print("|---|---:|---:|---:|")
    func letterbox(_ d: ImageDescriptor) -> AffineMatrix {
        let scale = 192 / Float(max(d.width, d.height))
        return AffineMatrix(
            a: scale, b: 0, c: (192 - scale * Float(d.width)) / 2, d: 0, e: scale,
            f: (192 - scale * Float(d.height)) / 2)
    }
    func chip(_ d: ImageDescriptor) -> AffineMatrix {
        let turn = AffineMatrix.rotation(by: 0.2, about: (Float(d.width) / 2, Float(d.height) / 2), movingTo: (75, 75))
        return AffineMatrix(
            a: turn.a / 2, b: turn.b / 2, c: 37.5 + turn.c / 2, d: turn.d / 2, e: turn.e / 2, f: 37.5 + turn.f / 2)
    }
    let warps: [(String, size: Int, (ImageDescriptor) -> AffineMatrix, AffineWarp.Border, AffineWarp.Rounding)] = [
        ("letterbox 192 × 192", 192, letterbox, .zero, .nearest),
        ("chip 150 × 150, turned", 150, chip, .blank, .down),
    ]
    let context = RenderContext(device: .cpu)
    let resident = try photos.map { try context.makeResidentImage($0) }
    for (label, size, transform, border, rounding) in warps {
        let recipes = resident.map { photo in
            photo.image.transformed(
                by: transform(photo.descriptor), width: size, height: size, border: border, rounding: rounding)
        }
        let seconds = try medianSeconds(runs: settings.runs) {
            for recipe in recipes { _ = try context.render(recipe) }
        }
        let naive = medianSeconds(runs: max(1, settings.runs / 2)) {
            for photo in photos {
                _ = Reference.transformed(
                    photo, by: transform(photo.descriptor), width: size, height: size, border: border,
                    rounding: rounding)
            }
        }
        print(
            """
            | \(label) | \(String(format: "%.3f", seconds * 1000 / Double(photos.count))) \
            | \(String(format: "%.2f", naive * 1000 / Double(photos.count))) \
            | \(String(format: "%.0f", naive / seconds)) |
            """
        )
    }
} catch {
    FileHandle.standardError.write(Data("filter-bench: \(error)\n".utf8))
    exit(1)
}
