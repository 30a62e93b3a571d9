import ArgumentParser
import Catalog
import FaceRecognition
import ImageKernels

/// `cbir identify`: who a face of a probe photo is, by the labelled faces.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Name a face of a probe photo after its nearest labelled face, or say it is unknown.",
        discussion: """
            Prints the name and the distance, or "unknown" when the nearest labelled face is further than the \
            threshold (by default dlib's 0.6 for embedding, 75 for the LBP matchers with the default weights; \
            identify compares faces one by one, so the matcher is embedding, weighted or nbnn-face). With --json: \
            {name, distance, nearest: {face, image, path, distance, x, y, width, height, \
            label}}; name is null for an unknown face, nearest is absent when no face is labelled.
            """)

    @OptionGroup var probe: ProbeOptions

    @Option(help: "embedding (dlib ResNet), nbnn-face or weighted: identify compares faces one by one.")
    var matcher: Matcher = .embedding

    @OptionGroup var weights: WeightsOption

    @Option(
        parsing: .unconditional,
        help: "Distances above this are unknown faces (default: 0.6 for embedding, 75 for the LBP matchers).")
    var threshold: Float?

    @Flag(help: "Print JSON (see above).")
    var json = false

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var detector: DetectorOption
    @OptionGroup var deviceOptions: DeviceOptions

    struct Report: Encodable {
        let name: String?
        let distance: Float?
        let nearest: FaceHit?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)  // null, not absent, for an unknown face
            try container.encodeIfPresent(distance, forKey: .distance)
            try container.encodeIfPresent(nearest, forKey: .nearest)
        }

        enum CodingKeys: CodingKey { case name, distance, nearest }
    }

    func validate() throws {
        guard threshold.map({ $0.isFinite && $0 >= 0 }) ?? true else {
            throw ValidationError("--threshold must be a number, 0 or more")
        }
    }

    func run() async throws {
        let store = try database.open(), context = try deviceOptions.context()
        let result = try await store.identify(
            photo: probe.probe, face: probe.choice, faces: try detector.faces(context: context),
            matcher: matcher, weights: try weights.weightMap(), threshold: threshold, context: context)
        if json {
            try printJSON(Report(name: result.name, distance: result.nearest?.distance, nearest: result.nearest))
            return
        }
        guard let nearest = result.nearest else {
            print("unknown (no face is labelled yet: see `cbir label`)")
            return
        }
        let distance = String(format: "%.4f", nearest.distance)
        if let name = result.name {
            print("\(name)  \(distance)  (face \(nearest.face), \(nearest.path))")
        } else {
            print(
                """
                unknown  (nearest: \(nearest.label ?? "?") at \(distance), beyond \
                \(threshold ?? Identification.defaultThreshold(for: matcher)))
                """
            )
        }
    }
}
