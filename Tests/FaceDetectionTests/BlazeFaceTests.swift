import FaceDetection
import Foundation
import ImageCodecs
import ImageKernels
import Testing
import TestSupport

/// What the TFLite interpreter and MediaPipe make of the shared photos (scripts/blazeface-reference.sh
/// wrote it with ai-edge-litert 2.3.0 and mediapipe 0.10.14).
struct BlazeFaceReference: Decodable {
    struct Paste: Decodable {
        let photo: String
        /// x, y, width, height of the photo.
        let crop: [Int]
        /// Where the crop's top-left corner lands on the input.
        let at: [Int]
    }

    struct Raw: Decodable {
        let model: String
        let pastes: [Paste]
        /// Every anchor's logit, little-endian float32, base64.
        let scores: String
        /// The highest-scoring anchors and their 16 regressors.
        let top: [Int]
        let regressors: [[Float]]
    }

    struct Face: Decodable {
        let score: Float
        /// x, y, width, height in pixels.
        let box: [Float]
        let keypoints: [[Float]]
    }

    struct Photo: Decodable {
        let model: String
        let photo: String
        let width: Int
        let height: Int
        let faces: [Face]
    }

    let raw: [Raw]
    let detections: [Photo]

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Reference/blazeface-reference.json")
        .standardized.path

    static func load() throws -> BlazeFaceReference {
        try JSONDecoder().decode(BlazeFaceReference.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
    }

    static func model(_ name: String) -> BlazeFaceDetector.Model { name == "short" ? .shortRange : .fullRange }
}

/// BlazeFace on our neural layer against the TFLite interpreter (raw outputs) and MediaPipe (faces).
@Suite struct BlazeFaceTests {
    /// The input a raw case describes: photos pasted unscaled on a black square, as RGB planes.
    static func input(_ raw: BlazeFaceReference.Raw, size: Int) throws -> PixelBuffer {
        var planes = [UInt8](repeating: 0, count: 3 * size * size)
        for paste in raw.pastes {
            let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/" + paste.photo).rgb()
            let (x0, y0, w, h) = (paste.crop[0], paste.crop[1], paste.crop[2], paste.crop[3]), width = photo.descriptor.width
            let plane = photo.descriptor.planePixelCount
            for c in 0..<3 {
                for y in 0..<h {
                    for x in 0..<w {
                        planes[(c * size + paste.at[1] + y) * size + paste.at[0] + x] = photo.bytes[c * plane + (y0 + y) * width + x0 + x]
                    }
                }
            }
        }
        return try PixelBuffer(width: size, height: size, channels: 3, values: planes)
    }

    /// On the CPU twins and on OpenCL (where there is a platform).
    @Test(arguments: TestDevices.hasOpenCL ? [DeviceChoice.cpu, .opencl] : [.cpu])
    func rawOutputsMatchTheInterpreter(_ choice: DeviceChoice) throws {
        let reference = try BlazeFaceReference.load()
        for raw in reference.raw {
            let model = BlazeFaceReference.model(raw.model)
            let detector = try BlazeFaceDetector(model: model, context: RenderContext(device: try TestDevices.device(choice), fallsBack: false))
            let (regressors, scores) = try detector.rawOutputs(for: Image(try Self.input(raw, size: model.inputSize)))
            let expected = try #require(Data(base64Encoded: raw.scores)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            #expect(scores.count == expected.count)
            let scoreError = zip(scores, expected).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
            var regressorError: Float = 0
            for (anchor, values) in zip(raw.top, raw.regressors) {
                for (k, value) in values.enumerated() { regressorError = max(regressorError, abs(regressors[anchor * 16 + k] - value) / max(1, abs(value))) }
            }
            #expect(scoreError <= 1e-3 && regressorError <= 1e-3,
                    "\(raw.model) on \(raw.pastes.map(\.photo)), \(choice): scores off by \(scoreError), regressors by \(regressorError)")
        }
    }

    /// The same faces as MediaPipe on every shared wild photo, boxes and keypoints within 2 px.
    @Test(arguments: BlazeFaceDetector.Model.allCases)
    func facesMatchMediaPipe(_ model: BlazeFaceDetector.Model) throws {
        let reference = try BlazeFaceReference.load()
        let detector = try BlazeFaceDetector(model: model)
        var worst: Float = 0
        for photo in reference.detections where BlazeFaceReference.model(photo.model) == model {
            let image = try ImageDecoder.decode(contentsOf: SharedData.root + "/" + photo.photo)
            #expect(image.descriptor.width == photo.width && image.descriptor.height == photo.height)
            let faces = try detector.faces(in: image)
            #expect(faces.count == photo.faces.count, "\(photo.photo): \(faces.count) faces, MediaPipe \(photo.faces.count)")
            for (face, expected) in zip(faces, photo.faces) {
                let ours = [face.x, face.y, face.width, face.height] + face.keypoints.flatMap { [$0.x, $0.y] }
                let theirs = expected.box + expected.keypoints.flatMap { $0 }
                let error = zip(ours, theirs).map { abs($0 - $1) }.max() ?? .infinity
                worst = max(worst, error)
                #expect(error <= 2 && abs(face.score - expected.score) <= 0.02,
                        "\(photo.photo): box \(ours.prefix(4)) score \(face.score), MediaPipe \(theirs.prefix(4)) score \(expected.score)")
            }
        }
        print("\(model.rawValue): largest difference from MediaPipe \(worst) px")
    }

    /// The README's BlazeFace example, kept here so that it stays true.
    @Test func theReadmeExample() throws {
        let detector = try BlazeFaceDetector(model: .fullRange)
        let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/wild-photos/test/obama_and_biden.jpg")
        let faces = try detector.faces(in: photo)
        #expect(faces.map { ($0.score * 100).rounded() / 100 } == [0.88, 0.79])
    }
}
