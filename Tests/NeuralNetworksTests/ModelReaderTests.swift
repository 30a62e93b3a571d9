import Foundation
import NeuralNetworks
import Testing

/// The dlib readers on the real model files (after `bash scripts/setup.sh`) and on damaged copies:
/// every damage is a typed error naming the file and, for contents, the byte offset.
@Suite struct ModelReaderTests {
    static let network = ModelCache.path(of: "dlib_face_recognition_resnet_model_v1.dat")
    static let landmarks = ModelCache.path(of: "shape_predictor_5_face_landmarks.dat")

    @Test func theFaceModelsRead() throws {
        let model = try DlibNetwork(contentsOf: Self.network)
        #expect(model.inputWidth == 150 && model.inputHeight == 150 && model.distanceThreshold == 0.6)
        #expect(abs(model.channelAverages[0] - 122.782) < 1e-3)
        var convolutions = 0, sums = 0
        for node in model.network.nodes {
            if node.operation is Network.ConvolutionWeights { convolutions += 1 }
            if node.operation is ResidualAdd { sums += 1 }
        }
        #expect(convolutions == 29 && sums == 14)
        let predictor = try DlibShapePredictor(contentsOf: Self.landmarks)
        #expect(
            predictor.landmarkCount == 5 && predictor.levels.count == 15
                && predictor.levels.allSatisfy { $0.trees.count == 500 })
    }

    @Test func damagedFilesGiveTypedErrorsWithOffsets() throws {
        let folder = NSTemporaryDirectory() + "model-reader-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.network))

        #expect(throws: ModelError.missing(path: folder + "/none.dat", setup: "bash scripts/setup.sh")) {
            try DlibNetwork(contentsOf: folder + "/none.dat")
        }
        let empty = folder + "/empty.dat"
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(throws: ModelError.truncated(path: empty, offset: 0, needed: 1)) { try DlibNetwork(contentsOf: empty) }

        let truncated = folder + "/truncated.dat"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        do {
            _ = try DlibNetwork(contentsOf: truncated)
            Issue.record("a truncated network was read")
        } catch {
            guard case .truncated(let path, let offset, _) = error else { throw error }
            #expect(path == truncated && offset == bytes.count / 2)
        }

        /// The offset and reason of the malformed-file error reading `damaged` (written to a file) gives.
        func malformed(_ damaged: Data, _ name: String) throws -> (offset: Int, reason: String)? {
            let path = folder + "/" + name
            try damaged.write(to: URL(fileURLWithPath: path))
            do {
                _ = try DlibNetwork(contentsOf: path)
                Issue.record("\(name) was read")
                return nil
            } catch {
                guard case .malformed(path, let offset, let reason) = error else { throw error }
                return (offset, reason)
            }
        }

        var corrupt = bytes
        corrupt[300] = 0x7F  // inside the input layer's name: a bad length
        let badLength = try malformed(corrupt, "malformed.dat")
        #expect(
            badLength.map { $0.offset > 0 && $0.offset < 400 && !$0.reason.isEmpty } == true,
            "\(String(describing: badLength))")

        // The first convolution's parameters (32 × 3 × 7 × 7 weights and 32 biases: 4736 × 1 × 1 × 1) declared as
        // four dimensions of 2^28 − 1, whose product overflows: malformed, where it used to trap.
        let header: [UInt8] = [0x01, 0x02, 0x02, 0x80, 0x12, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01]
        let start = try #require(bytes.firstRange(of: header)).lowerBound
        var huge = bytes
        huge.replaceSubrange(
            start + 2..<start + header.count,
            with: Array(repeating: [UInt8]([0x04, 0xFF, 0xFF, 0xFF, 0x0F]), count: 4).joined())
        let impossible = try malformed(huge, "huge-tensor.dat")
        #expect(
            impossible.map { $0.offset == start && $0.reason.contains("more than the file's") } == true,
            "\(String(describing: impossible))")

        let landmarks = try Data(contentsOf: URL(fileURLWithPath: Self.landmarks))
        let cut = folder + "/landmarks.dat"
        try landmarks.prefix(1000).write(to: URL(fileURLWithPath: cut))
        #expect(throws: ModelError.self) { try DlibShapePredictor(contentsOf: cut) }
        #expect(throws: ModelError.self) { try DlibShapePredictor(contentsOf: Self.network) }
    }
}
