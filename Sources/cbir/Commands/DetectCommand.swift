import ArgumentParser
import FaceDetection
import Foundation
import ImageCodecs
import ImageKernels

/// `cbir detect`: faces in photos, as text or JSON, and optionally drawn on the photo.
struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Find faces and their eyes with OpenCV's trained cascades or MediaPipe's BlazeFace.",
        discussion: """
            Prints one line per face, strongest first: x, y, width, height, the raw detections that support it, \
            and the lean of the line through its eyes in degrees (clockwise on screen) with the eye centres, \
            or "no eyes" when the eye search failed (the face is then cropped unrotated). Faces are found and \
            boxed as `cbir index` finds them, with the same fallbacks; BlazeFace's boxes sit where the cascades' \
            would (a tenth of their width higher than its own). BlazeFace's faces also print their score; its \
            eyes are two of its six keypoints, and of the cascade options only --min-size applies, with --tile.
            """)

    @Argument(help: "Images (JPEG, PNG, PGM/PPM).")
    var images: [String]

    @OptionGroup var detectorOption: DetectorOption

    @Option(help: "Deprecated: the same as --detector.")
    var model: DetectorChoice?

    @Option(parsing: .unconditional, help: "Smallest face searched, in pixels.")
    var minSize = 40

    @Option(parsing: .unconditional, help: "Clusters of at most this many raw detections are dropped.")
    var minNeighbors = 5

    @Option(parsing: .unconditional, help: "Each pyramid level is this much smaller than the last.")
    var scaleFactor = 1.1

    @Flag(
        help: """
            BlazeFace (full range): also search overlapping squares of each photo where the whole of it would show \
            faces of --min-size too small to find (small faces in group photos; several times slower).
            """)
    var tile = false

    @Flag(
        help: """
            Print JSON: an array of {path, width, height, faces: [{x, y, width, height, neighbours, angle, eyes, \
            score}]}; \
            angle in degrees, eyes {left: {x, y}, right: {x, y}} in pixels or null; score (0…1) from BlazeFace only, \
            which adds keypoints: [{x, y}] (right eye, left eye, nose tip, mouth, right ear, left ear).
            """)
    var json = false

    @Option(help: "Write the (single) photo with its faces boxed and eyes marked to this PNG.")
    var draw: String?

    @OptionGroup var deviceOptions: DeviceOptions

    struct Report: Encodable {
        struct Face: Encodable {
            let x, y, width, height, neighbours: Int
            let angle: Float
            let eyes: Eyes?
            let score: Float?
            let keypoints: [ImagePoint]?
        }
        struct Eyes: Encodable {
            let left, right: ImagePoint
        }
        let path: String
        let width: Int
        let height: Int
        let faces: [Face]
    }

    /// The detector asked for, by `--detector` or the deprecated `--model`.
    var detector: DetectorChoice { model ?? detectorOption.detector }

    func validate() throws {
        guard !images.isEmpty else { throw ValidationError("give at least one image") }
        guard draw == nil || images.count == 1 else { throw ValidationError("--draw takes exactly one image") }
        guard minSize >= 0, minNeighbors >= 0 else {
            throw ValidationError("--min-size and --min-neighbors cannot be negative")
        }
        guard scaleFactor > 1.0001, scaleFactor < 10 else {
            throw ValidationError("--scale-factor must be above 1 and below 10")
        }
        guard !tile || detector == .blazeFace else {
            throw ValidationError(
                "--tile is for --detector blazeface (the short-range model sees false faces in tiles)")
        }
    }

    /// Each photo's size and faces, found as indexing finds them: the cascades on its gray pixels,
    /// BlazeFace (with scores and keypoints) on its colours.
    func finder() throws -> (String) throws -> (size: ImageDescriptor, faces: [FaceObservation]) {
        let options = DetectionOptions(scaleFactor: scaleFactor, minNeighbors: minNeighbors, minSize: minSize)
        let finder = try detector.finder(options: options, tiles: tile, context: try deviceOptions.context())
        let decoding = DecodingOptions(grayscale: !detector.readsColour)
        return { [minSize] image in
            let photo = try ImageDecoder.decode(contentsOf: image, options: decoding)
            return (photo.descriptor, try finder.faces(in: photo, gray: nil, minimumFaceSize: minSize))
        }
    }

    func run() throws {
        if model != nil {
            FileHandle.standardError.write(Data("cbir detect: --model is deprecated; use --detector\n".utf8))
        }
        let find = try finder()
        var reports: [Report] = []
        for image in images {
            let (size, found) = try find(image)
            reports.append(
                Report(
                    path: image, width: size.width, height: size.height,
                    faces: found.map { face in
                        .init(
                            x: face.rect.x, y: face.rect.y, width: face.rect.width, height: face.rect.height,
                            neighbours: face.neighbours,
                            angle: face.angle * 180 / .pi,
                            eyes: face.eyes.map { Report.Eyes(left: $0.left, right: $0.right) },
                            score: face.score, keypoints: face.keypoints.isEmpty ? nil : face.keypoints)
                    }))
            if let draw {
                try ImageEncoder.write(FaceSheet.marked(try ImageDecoder.decode(contentsOf: image), found), to: draw)
            }
        }
        if json {
            try printJSON(reports)
        } else {
            for report in reports {
                print(
                    """
                    \(report.path): \(report.faces.count) face\(report.faces.count == 1 ? "" : "s") in \
                    \(report.width)×\(report.height)
                    """
                )
                for face in report.faces {
                    let eyes = face.eyes.map {
                        String(
                            format: "%+.1f° eyes (%.0f, %.0f) (%.0f, %.0f)", face.angle, $0.left.x, $0.left.y,
                            $0.right.x, $0.right.y)
                    }
                    let score = face.score.map { String(format: "  score %.3f", $0) } ?? ""
                    print(
                        """
                          \(face.x) \(face.y) \(face.width)×\(face.height)  ×\(face.neighbours)\(score)  \
                        \(eyes ?? "no eyes")
                        """
                    )
                }
            }
        }
    }
}
