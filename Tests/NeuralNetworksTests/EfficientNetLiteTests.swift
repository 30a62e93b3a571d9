import Foundation
import ImageCodecs
import ImageKernels
import NeuralNetworks
import TestSupport
import Testing

/// What an independent numpy implementation of EfficientNet-Lite0 makes of the shared photos
/// (scripts/efficientnet-reference.sh wrote it).
struct EfficientNetReference: Decodable {
    struct TensorSummary: Decodable {
        let name: String
        let shape: [Int]
        let sum: Double
        let first: [Float]
    }

    /// A square cut from a losslessly decoded photo, fed as it is.
    struct Exact: Decodable {
        let source: String
        let x: Int
        let y: Int
        let size: Int
        /// The pooled features and the logits, little-endian float32, base64.
        let features: String
        let logits: String
    }

    struct Photo: Decodable {
        let file: String
        /// The L2-normalised features, little-endian float32, base64.
        let print: String
        let top5: [Int]
        let probabilities: [Float]
    }

    let tensorCount: Int
    let tensors: [TensorSummary]
    let exact: [Exact]
    let photos: [Photo]

    static let model = ModelCache.path(of: "efficientnet-lite0-57934424.pth")
    static let file = Repository.referenceFiles + "/efficientnet-lite0-reference.json"

    static func load() throws -> EfficientNetReference {
        try JSONDecoder().decode(EfficientNetReference.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
    }
}

/// EfficientNet-Lite0 on our layers against the independent implementation, on exactly the same inputs
/// (squares of a PNG at the trained size and at an odd-sized one), on each device.
@Suite struct EfficientNetLiteTests {
    @Test(.needs(.wildPhotos), arguments: TestDevices.hasOpenCL ? [DeviceChoice.cpu, .opencl] : [.cpu])
    func featuresAndLogitsMatchTheReference(_ choice: DeviceChoice) throws {
        let reference = try EfficientNetReference.load()
        let checkpoint = try PyTorchCheckpoint(contentsOf: EfficientNetReference.model)
        let context = RenderContext(device: try TestDevices.device(choice), fallsBack: false)
        for exact in reference.exact {
            let model = try EfficientNetLite(checkpoint, inputSize: exact.size)
            let network = try model.network.fused().loaded(on: context)
            let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/" + exact.source).rgb()
            let square = Image(photo).cropped(
                to: PixelRect(x: exact.x, y: exact.y, width: exact.size, height: exact.size))
            let outputs = try context.render(network.outputs(for: square.converted(to: .float32)))
            for (name, output, expected) in [
                ("features", outputs[0].floatValues, try ReferenceValues.floats(base64: exact.features)),
                ("logits", outputs[1].floatValues, try ReferenceValues.floats(base64: exact.logits)),
            ] {
                #expect(output.count == expected.count)
                let error = zip(output, expected).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
                #expect(error <= 1e-4, "\(exact.size)-pixel square, \(name) on \(choice): off by \(error)")
            }
        }
    }

    @Test func aWrongCheckpointIsAnErrorNamingTheTensor() throws {
        let checkpoint = try PyTorchCheckpoint(
            path: "other.pth", bytes: PyTorchCheckpointTests.sample.legacy)
        #expect(throws: ModelError.malformed(path: "other.pth", offset: 0, reason: "no tensor _conv_stem.weight")) {
            try EfficientNetLite(checkpoint)
        }
        #expect(throws: ModelError.self) { try EfficientNetLite(checkpoint, inputSize: 8) }
    }
}
