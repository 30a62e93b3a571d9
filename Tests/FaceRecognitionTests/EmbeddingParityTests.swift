import FaceRecognition
import ImageKernels
import Testing
import TestSupport

/// Our ResNet against dlib's descriptors (Tests/Reference, written by scripts/dlib-reference.sh).
@Suite struct EmbeddingParityTests {
    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
    }

    @Test(arguments: [DeviceChoice.cpu, .opencl])
    func dlibChipsGiveDlibDescriptors(_ choice: DeviceChoice) throws {
        try #require(choice == .cpu || TestDevices.hasOpenCL, "no OpenCL platform here")
        let reference = try DlibReference.load()
        let embedder = try FaceEmbedder(context: RenderContext(device: try TestDevices.device(choice)))
        let faces = reference.faces.filter { $0.chip != nil }
        try #require(faces.count >= 3)
        let chips = try PixelBuffer.batch(faces.map { try DlibReference.chip($0.chip!) })
        let embeddings = try embedder.embeddings(of: chips)
        for (face, embedding) in zip(faces, embeddings) {
            let distance = Self.distance(embedding, face.descriptor)
            #expect(distance <= 0.01, "\(face.photo) on \(choice): distance \(distance) from dlib's descriptor")
        }
    }
}
