/// A network in dlib's serialised `dnn` format, such as `dlib_face_recognition_resnet_model_v1.dat` (the
/// ResNet of dlib's dnn_face_recognition_ex: 150×150 RGB in, 128 values out).
///
/// The file holds the loss record, each layer wrapper's version from the outside in, the input layer,
/// then each layer's record from the innermost outward (dlib/dnn/core.h). Tag and skip wrappers carry no
/// identifier, so they are read by the rule of dlib's residual templates: a lone marker tags a unit's
/// input; a marker directly after another is `tag2` + `skip1` of a down-sampling unit (its sum adds the
/// tagged block output to what follows the skip); `add_prev` adds the tagged value to the current one.
public struct DlibNetwork: Sendable {
    /// Reads an RGB float tensor (uint8 pixels converted to 0…1) and applies dlib's input scaling first.
    public let network: Network
    public let inputWidth: Int
    public let inputHeight: Int
    /// The per-channel averages (R, G, B, in 0…255) the input layer subtracts before dividing by 256.
    public let channelAverages: [Float]
    /// The distance threshold the loss was trained with (0.6 for the face model): same person below it.
    public let distanceThreshold: Float

    /// Reads the file at `path`; a missing file's error names `setup`, the command that fetches it.
    public init(contentsOf path: String, setup: String = "bash scripts/setup.sh") throws(ModelError) {
        var archive = try DlibArchive.open(path, setup: setup)
        _ = try archive.integer(in: 1...1, "loss layer version")
        let lossStart = archive.offset
        switch try archive.string() {
        case "loss_metric_2":
            _ = try archive.float()
            distanceThreshold = try archive.float()
        case "loss_metric_":
            distanceThreshold = 0.75
        case let other:
            throw archive.malformed("loss layer \(other) is not dlib's metric loss", at: lossStart)
        }
        // Wrapper versions, outermost first, up to the layer whose subnetwork is the input layer.
        var wrappers: [Int] = []
        var inputLayerVersion = 0
        while true {
            let version = try archive.integer(in: 1...3, "layer version")
            if try archive.nextStringStarts(with: "input_") {
                inputLayerVersion = version
                break
            }
            wrappers.append(version)
            guard wrappers.count < 10_000 else { throw archive.malformed("no input layer") }
        }
        let inputStart = archive.offset
        let inputName = try archive.string()
        guard inputName == "input_rgb_image_sized" || inputName == "input_rgb_image" else {
            throw archive.malformed("input layer \(inputName) is not an RGB image layer", at: inputStart)
        }
        channelAverages = [try archive.float(), try archive.float(), try archive.float()]
        if inputName == "input_rgb_image_sized" {
            inputHeight = try archive.integer(in: 1...4096, "input rows")
            inputWidth = try archive.integer(in: 1...4096, "input columns")
        } else {
            (inputWidth, inputHeight) = (150, 150)
        }

        var builder = Builder()
        builder.current = builder.network.append(
            .channelAffine(
                scale: [Float](repeating: 255 / 256, count: 3),
                shift: channelAverages.map { -$0 / 256 }, rectified: false))
        try builder.add(try DlibLayerRecord(&archive), archive: archive)
        try archive.skipWrapperState(version: inputLayerVersion, inputLayer: true)
        for version in wrappers.reversed() {
            if version == 2 {
                try builder.add(try DlibLayerRecord(&archive), archive: archive)
                try archive.skipWrapperState(version: version, inputLayer: false)
            } else {
                try builder.marker(archive: archive)
            }
        }
        guard archive.isAtEnd else { throw archive.malformed("unexpected bytes after the last layer") }
        network = builder.network
    }

    /// Turns the chain of layer records and markers into a graph.
    private struct Builder {
        var network = Network()
        /// The node whose output the next layer reads.
        var current = 0
        /// Outputs tagged by markers, innermost last.
        var tags: [Int] = []
        /// A down-sampling unit's block output, waiting for its add_prev.
        var pendingSum: Int?
        var lastWasMarker = false

        mutating func marker(archive: DlibArchive) throws(ModelError) {
            defer { lastWasMarker.toggle() }
            guard lastWasMarker else {
                tags.append(current)
                return
            }
            // The previous marker tagged this unit's block output (tag2); this one skips back to its input (skip1).
            guard let blockOutput = tags.popLast(), let unitInput = tags.popLast() else {
                throw archive.malformed("a skip with no tagged layer")
            }
            pendingSum = blockOutput
            current = unitInput
        }

        mutating func add(_ record: DlibLayerRecord, archive: DlibArchive) throws(ModelError) {
            lastWasMarker = false
            switch record {
            case .operation(let operation):
                current = network.append(operation, inputs: [current])
            case .addPrevious:
                guard let tagged = pendingSum ?? tags.popLast() else {
                    throw archive.malformed("add_prev with no tagged layer")
                }
                pendingSum = nil
                current = network.append(.add(rectified: false), inputs: [current, tagged])
            }
        }
    }
}
