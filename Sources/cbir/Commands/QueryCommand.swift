import ArgumentParser
import Catalog
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// `cbir query`: the stored photos and faces nearest a face of a probe photo.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Find the stored photos and faces nearest a face of a probe photo.",
        discussion: """
            Prints the nearest images (each by its nearest face, or for rnbnn and nbnn by its image distance) and \
            the nearest faces, smaller distances first. With --json, prints one object: {database, probe: {path, \
            face, faces, x, y, width, height}, matcher, weights, images: [{image, path, distance, bestFace}], \
            faces: [{face, image, path, distance, x, y, width, height, label}]}; boxes are in the photos' own \
            pixels, label is absent when the face has none.
            """)

    @OptionGroup var probe: ProbeOptions
    @Option(
        help: """
            embedding (dlib ResNet, per face), nbnn (NBNN per image), rnbnn (restricted NBNN per image), weighted \
            (chi-square per face) or nbnn-face.
            """
    )
    var matcher: Matcher = .embedding

    @OptionGroup var weights: WeightsOption

    @Option(
        parsing: .unconditional,
        help: """
            With nbnn or nbnn-face: compare each probe block with the face's blocks within this many grid steps of \
            its position only (neighbourhood NBNN; 0 is restricted NBNN).
            """
    )
    var radius: Int?

    @Option(parsing: .unconditional, help: "How many images and faces to list.")
    var top = 10

    @Flag(help: "Print JSON (see above).")
    var json = false

    @Option(help: "Write a PNG sheet: the probe face, then the matching images' faces with distances and file names.")
    var sheet: String?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var detector: DetectorOption
    @OptionGroup var deviceOptions: DeviceOptions

    struct Report: Encodable {
        struct Probe: Encodable {
            let path: String
            let face, faces, x, y, width, height: Int
        }
        let database: String
        let probe: Probe
        let matcher: String
        let weights: String
        let images: [ImageHit]
        let faces: [FaceHit]
    }

    func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1") }
        guard (radius ?? 0) >= 0 else { throw ValidationError("--radius cannot be negative") }
    }

    func run() async throws {
        let store = try database.open(), context = try deviceOptions.context()
        let result = try await store.search(
            photo: probe.probe, face: probe.choice, faces: try detector.faces(context: context), matcher: matcher,
            weights: try weights.weightMap(), radius: radius, top: top, context: context)
        let face = result.probe.face
        let report = Report(
            database: database.shown,
            probe: .init(
                path: probe.probe, face: result.probe.number, faces: result.probe.count, x: face.x,
                y: face.y, width: face.width, height: face.height),
            matcher: matcher.rawValue, weights: weights.weights, images: result.images, faces: result.faces)
        if let sheet { try writeSheet(report, probeThumbnail: face.thumbnail, store: store, to: sheet) }
        if json {
            try printJSON(report)
            return
        }
        print(
            """
            probe: \(probe.probe), face \(result.probe.number) of \(result.probe.count) at \(face.x),\(face.y) \
            \(face.width)×\(face.height); \(matcher.rawValue), \(weights.weights) weights
            """)
        print("images:")
        for (rank, hit) in result.images.enumerated() {
            print(String(format: "%3d  %9.4f  %@  (face %lld)", rank + 1, hit.distance, hit.path, hit.bestFace))
        }
        print("faces:")
        for (rank, hit) in result.faces.enumerated() {
            print(
                String(
                    format: "%3d  %9.4f  face %lld  %@  %d,%d %d×%d", rank + 1, hit.distance, hit.face, hit.path,
                    hit.x, hit.y, hit.width, hit.height) + (hit.label.map { "  [\($0)]" } ?? ""))
        }
    }

    /// The probe face, then each matching image's best face, captioned with rank, distance and file name.
    private func writeSheet(_ report: Report, probeThumbnail: Data, store: Catalog, to path: String) throws {
        let thumbnails = Dictionary(
            uniqueKeysWithValues: try store.faces(report.images.map(\.bestFace)).compactMap { face in
                face.id.map { ($0, face.thumbnail) }
            })
        var cells = [
            MatchSheet.Cell(
                face: try MatchSheet.face(thumbnail: probeThumbnail, name: report.probe.path),
                caption: ["probe, face \(report.probe.face)", (report.probe.path as NSString).lastPathComponent])
        ]
        for (rank, hit) in report.images.enumerated() {
            guard let jpeg = thumbnails[hit.bestFace] else { continue }
            cells.append(
                .init(
                    face: try MatchSheet.face(thumbnail: jpeg, name: "thumbnail of face \(hit.bestFace)"),
                    caption: [
                        String(format: "%d. %.4f", rank + 1, hit.distance), (hit.path as NSString).lastPathComponent,
                    ]))
        }
        try ImageEncoder.write(try MatchSheet.make(cells), to: path)
    }
}
