import FaceDetection
import FaceRecognition
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// The README's embedding example, kept here so that it stays true (dataset paths made absolute).
@Suite(.needs(.wildPhotos)) struct ReadmeEmbeddingExampleTests {
    @Test func embedTwoPhotos() throws {
        var printed: [String] = []  // what the example prints, read below rather than on the console
        func print(_ values: Any...) { printed.append(values.map { "\($0)" }.joined(separator: " ")) }
        let context = try RenderContext()
        let finder = try CascadeFaceFinder(context: context)
        let embedder = try FaceEmbedder(context: context)  // dlib's ResNet and 5-point model from the model cache
        func embedding(_ path: String) throws -> [Float] {
            let photo = try ImageDecoder.decode(contentsOf: path)
            let faces = try finder.faces(in: try context.render(Image(photo).grayscale()))
            return try embedder.embeddings(ofFacesIn: faces.map(\.landmarkBox), of: photo)[0]  // 128 values a face
        }
        let a = try embedding("\(SharedData.root)/wild-photos/train/obama/obama.jpg")
        let b = try embedding("\(SharedData.root)/wild-photos/test/obama1.jpg")
        let distance = zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        print(distance, distance < embedder.threshold)  // about 0.36, true: the same person
        #expect(distance < embedder.threshold && printed == ["\(distance) true"])
    }
}
