import BenchmarkSupport
import FaceDetection
import Foundation
import ImageCodecs
import ImageKernels

// detect-bench: face detection time per wild photo on each device, full size and DCT-scaled, with
// OpenCV's frontal-face Haar and LBP models and OpenCV's usual parameters (scale 1.1, minNeighbors 5,
// faces ≥ 40 px). Prints a markdown table: medians of --runs runs after a warm-up. Then MediaPipe's
// BlazeFace models (the whole photo, and tiled for faces ≥ 40 px) against the cascades on each device,
// photos decoded once, and the detectors as `cbir` builds them by name (with their fallbacks); every
// detector's precision and recall against the faces checked by eye (--truth, default
// Benchmarks/detect-bench/faces.json).
//

let options = UsageOptions(
    usage: "detect-bench [--runs N] [--photos a.jpg,b.jpg] [--datasets ../shared/datasets] [--truth faces.json]")

let runs = options.value("--runs").flatMap(Int.init) ?? 5
let root = (options.value("--datasets") ?? "../shared/datasets") + "/wild-photos"
let photos: [String]
if let list = options.value("--photos") {
    photos = list.split(separator: ",").map(String.init)
} else {
    let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    photos = files.filter { [".jpg", ".jpeg", ".png"].contains(where: $0.lowercased().hasSuffix) }.sorted()
}
guard !photos.isEmpty else {
    FileHandle.standardError.write(Data("detect-bench: no photos under \(root)\n".utf8))
    exit(1)
}

var devices: [Device] = [.cpu]
do { devices.append(try Device.select(.opencl)) } catch {
    FileHandle.standardError.write(Data("detect-bench: \(error); timing the CPU device only\n".utf8))
}
let models = try [
    CascadeModel(contentsOf: CascadeModel.frontalFaceHaarPath),
    CascadeModel(contentsOf: CascadeModel.frontalFaceLBPPath),
]
let detectors = try models.map { model in
    try devices.map { try CascadeDetector(model: model, context: RenderContext(device: $0)) }
}

print("# detect-bench\n")
print(
    """
    Machine: \(machineDescription()); OpenCL: \(devices.count > 1 ? devices[1].name : "none"); median of \(runs) \
    runs.\n
    """
)
print("Scaled: decoded with libjpeg-turbo's DCT scaling to the smallest power-of-two reduction with a long side")
print(
    """
    ≥ 640 px, minimum face size scaled alike. Times are detection only (pyramid, integral images, cascade, \
    grouping).\n
    """
)
print(
    "| photo | size | model | faces | " + devices.map { "\($0.kind) ms" }.joined(separator: " | ") + " | OpenCL ÷ CPU |"
)
print("|---|---|---|---:|" + devices.map { _ in "---:|" }.joined() + "---:|")
var totals = [[Double]](repeating: [Double](repeating: 0, count: devices.count), count: 4)
for photo in photos {
    let path = root + "/" + photo
    let full = try ImageDecoder.decode(contentsOf: path, options: DecodingOptions(grayscale: true))
    let scaled = try ImageDecoder.decode(
        contentsOf: path, options: DecodingOptions(grayscale: true, minimumLongSide: 640))
    for (variant, image) in [("full", full), ("scaled", scaled)] {
        let d = image.descriptor
        let shrink = Double(d.width) / Double(full.descriptor.width)
        let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 5, minSize: Int((40 * shrink).rounded()))
        for (m, model) in models.enumerated() {
            var faces: [Detection] = []
            var times: [Double] = []
            for detector in detectors[m] {
                times.append(try medianSeconds(runs: runs) { faces = try detector.detect(in: image, options: options) })
            }
            for (i, time) in times.enumerated() { totals[m * 2 + (variant == "full" ? 0 : 1)][i] += time }
            let ratio = times.count > 1 ? String(format: "%.2f", times[1] / times[0]) : "–"
            print(
                "| \(photo) | \(variant) \(d.width)×\(d.height) | \(model.featureType.rawValue) | \(faces.count) | "
                    + times.map { String(format: "%.1f", $0 * 1000) }.joined(separator: " | ") + " | \(ratio) |")
        }
    }
}
print("\nTotals over \(photos.count) photos (ms):\n")
print("| model | variant | " + devices.map { "\($0.kind)" }.joined(separator: " | ") + " |")
print("|---|---|" + devices.map { _ in "---:|" }.joined())
for (index, total) in totals.enumerated() {
    print(
        "| \(models[index / 2].featureType.rawValue) | \(index % 2 == 0 ? "full" : "scaled") | "
            + total.map { String(format: "%.0f", $0 * 1000) }.joined(separator: " | ") + " |")
}

// Each OpenCL device again with the other kind's kernel shapes (an OpenCL CPU with the GPU shapes: the
// pyramid atlas a pixel a work-item, the cascade's early stages and compacted survivors, its late stages a
// warp a window), on the DCT-scaled photos: the shapes compared in one run.
for device in devices.dropFirst() {
    guard let shapes = device.otherShapes else { continue }
    print("\nShapes on \(device.kind): totals over the \(photos.count) DCT-scaled photos (ms):\n")
    print("| model | \(device.kind) | \(device.kind), \(shapes.name)-shaped | \(shapes.name)-shaped ÷ own |")
    print("|---|---:|---:|---:|")
    let scaled = DecodingOptions(grayscale: true, minimumLongSide: 640)
    let images = try photos.map { photo in
        let bytes = try ImageDecoder.contents(of: root + "/" + photo)
        return (
            pixels: try ImageDecoder.decode(bytes, path: photo, options: scaled),
            minSize: Int((40 / Double(ImageDecoder.reduction(of: bytes, options: scaled))).rounded())
        )
    }
    for model in models {
        let own = try CascadeDetector(model: model, context: RenderContext(device: device))
        let shapedContext = RenderContext(device: device)
        shapedContext.useSchedules(of: shapes.kind)
        let shaped = try CascadeDetector(model: model, context: shapedContext)
        var totals = [0.0, 0.0]
        for image in images {
            let options = DetectionOptions(scaleFactor: 1.1, minNeighbors: 5, minSize: image.minSize)
            for (index, detector) in [own, shaped].enumerated() {
                totals[index] += try medianSeconds(runs: runs) {
                    _ = try detector.detect(in: image.pixels, options: options)
                }
            }
        }
        print(
            """
            | \(model.featureType.rawValue) | \(String(format: "%.0f", totals[0] * 1000)) | \
            \(String(format: "%.0f", totals[1] * 1000)) | 
            """
                + String(format: "%.2f", totals[1] / totals[0]) + " |")
    }
}

// BlazeFace (short and full range, whole photo and tiled) against the cascades, each device, totals over
// the photos: the cascades on the DCT-scaled gray photo (their fastest setting above), BlazeFace on the
// full-size colour photo it letterboxes (its time includes the letterbox). Faces: the sum over the photos.
print("\nBlazeFace against the Haar cascade: totals over the \(photos.count) photos (ms), faces found:\n")
print("| detector | " + devices.map { "\($0.kind) ms" }.joined(separator: " | ") + " | faces | ÷ Haar (CPU device) |")
print("|---|" + devices.map { _ in "---:|" }.joined() + "---:|---:|")
let grayScaled = DecodingOptions(grayscale: true, minimumLongSide: 640)
let benchPhotos = try photos.map { photo in
    let bytes = try ImageDecoder.contents(of: root + "/" + photo)
    let reduction = ImageDecoder.reduction(of: bytes, options: grayScaled)
    return BenchPhoto(
        name: photo, colour: try ImageDecoder.decode(bytes, path: photo),
        fullGray: try ImageDecoder.decode(bytes, path: photo, options: DecodingOptions(grayscale: true)),
        gray: try ImageDecoder.decode(bytes, path: photo, options: grayScaled), reduction: reduction)
}
struct BenchPhoto {
    let name: String, colour: PixelBuffer, fullGray: PixelBuffer, gray: PixelBuffer, reduction: Int
}
/// Faces of at least 40 px, as for the cascades above: BlazeFace tiles the photo where the whole of it
/// would show such faces smaller than the model finds.
let smallestFace = 40
var contenders: [(name: String, faces: (BenchPhoto, Int) throws -> [Box])] = []
for model in models {
    let detectors = try devices.map { try CascadeDetector(model: model, context: RenderContext(device: $0)) }
    contenders.append(
        (
            model.featureType.rawValue.lowercased(),
            { photo, device in
                let options = DetectionOptions(
                    scaleFactor: 1.1, minNeighbors: 5,
                    minSize: Int((Double(smallestFace) / Double(photo.reduction)).rounded()))
                return try detectors[device].detect(in: photo.gray, options: options).map {
                    let r = Double(photo.reduction)
                    return Box(
                        x: Double($0.rect.x) * r, y: Double($0.rect.y) * r, width: Double($0.rect.width) * r,
                        height: Double($0.rect.height) * r)
                }
            }
        ))
}
for model in BlazeFaceDetector.Model.allCases {
    let detectors = try devices.map { try BlazeFaceDetector(model: model, context: RenderContext(device: $0)) }
    // Tiling is for the full-range model: the short-range one, made for faces near the camera, sees false
    // faces in the squares (43 false boxes over the 25 photos when measured) and takes 20× as long.
    for tiled in model == .fullRange ? [false, true] : [false] {
        contenders.append(
            (
                model.rawValue + (tiled ? ", tiled to \(smallestFace) px" : ""),
                { photo, device in
                    try detectors[device].faces(in: photo.colour, minimumFaceSize: tiled ? smallestFace : nil).map {
                        Box(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height))
                    }
                }
            ))
    }
}
// The detectors as `cbir detect --detector NAME` builds them (`DetectorChoice`), with their fallbacks, on
// the full-size photo (BlazeFace on its colours, the cascades on its gray plane), not tiled.
for choice in DetectorChoice.named {
    let finders = try devices.map { try choice.finder(tiles: false, context: RenderContext(device: $0)) }
    contenders.append(
        (
            "--detector \(choice)",
            { photo, device in
                try finders[device].faces(in: photo.colour, gray: photo.fullGray, minimumFaceSize: smallestFace).map {
                    Box(
                        x: Double($0.rect.x), y: Double($0.rect.y), width: Double($0.rect.width),
                        height: Double($0.rect.height))
                }
            }
        ))
}
var haarTotal = 0.0, found: [[String: [Box]]] = []
for (name, detect) in contenders {
    var totals = [Double](repeating: 0, count: devices.count), faces = 0, boxes: [String: [Box]] = [:]
    for photo in benchPhotos {
        for device in devices.indices {
            var result: [Box] = []
            totals[device] += try medianSeconds(runs: runs) { result = try detect(photo, device) }
            if device == 0 {
                faces += result.count
                boxes[photo.name] = result
            }
        }
    }
    if name == "haar" { haarTotal = totals[0] }
    found.append(boxes)
    print(
        "| \(name) | " + totals.map { String(format: "%.0f", $0 * 1000) }.joined(separator: " | ") + " | \(faces) | "
            + String(format: "%.2f", totals[0] / haarTotal) + " |")
}

// Each detector's boxes (CPU device) against the faces checked by eye in every photo.
let truthPath = options.value("--truth") ?? "Benchmarks/detect-bench/faces.json"
do {
    let truth = try FaceTruth(contentsOf: truthPath)
    let total = truth.faces.values.reduce(0) { $0 + $1.count }
    print(
        "\nPrecision and recall against the \(total) faces checked by eye (\(truthPath)), a box a face at IoU ≥ 0.3:\n")
    print("| detector | faces found | false boxes | missed | precision | recall | missed faces | false boxes on |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for ((name, _), boxes) in zip(contenders, found) {
        let score = truth.score(boxes)
        print(
            "| \(name) | \(score.hits) | \(score.falseBoxes.count) | \(score.missed.count) | "
                + String(format: "%.2f", Double(score.hits) / Double(max(score.hits + score.falseBoxes.count, 1)))
                + " | "
                + String(format: "%.2f", Double(score.hits) / Double(total))
                + " | \(score.missed.joined(separator: ", ")) | "
                + "\(score.falseBoxes.joined(separator: ", ")) |")
    }
} catch {
    FileHandle.standardError.write(Data("detect-bench: no precision and recall: \(truthPath): \(error)\n".utf8))
}
