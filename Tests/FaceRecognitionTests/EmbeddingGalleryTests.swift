import BenchmarkSupport
import FaceRecognition
import ImageKernels
import TestSupport
import Testing

/// The embedding gallery's exact search against distances computed here, through appends and removals
/// (rows moved and rewritten on the device), on both devices.
@Suite struct EmbeddingGalleryTests {
    @Test(arguments: GalleryTests.devices)
    func searchMatchesPlainDistancesThroughAppendsAndRemovals(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        func vector() -> [Float] {
            (0..<FaceEmbedder.length).map { _ in Float.random(in: -0.3..<0.3, using: &generator) }
        }
        let gallery = EmbeddingGallery(context: RenderContext(device: try TestDevices.device(choice)))
        var stored: [FaceID: (embedding: [Float], image: ImageID)] = [:]
        for round in 0..<3 {
            // 37 faces a round (past the first capacity of 64 in the second), then a few removed.
            let batch = (0..<37).map { i in
                (vector(), FaceID(Int64(round * 100 + i)), ImageID(Int64((round * 100 + i) / 3)))
            }
            try gallery.append(batch)
            for (embedding, face, image) in batch { stored[face] = (embedding, image) }
            for face in stored.keys.sorted().filter({ $0.rawValue % 7 == 0 }) {
                try gallery.remove(face: face)
                stored[face] = nil
            }
            let probe = vector()
            var found = Everything()
            try gallery.search(probe, into: &found)
            #expect(gallery.count == stored.count && found.faces.count == stored.count)
            for match in found.faces {
                let expected = zip(probe, try #require(stored[match.face]).embedding).map { ($0 - $1) * ($0 - $1) }
                    .reduce(0, +).squareRoot()
                #expect(
                    abs(match.distance - expected) <= 1e-5, "face \(match.face) on \(choice), seed \(generator.seed)")
            }
            for image in found.images {
                let nearest = found.faces.filter { $0.image == image.image }.map(\.distance).min()
                #expect(image.distance == nearest)
            }
        }
        #expect(throws: RecognitionError.self) { try gallery.append([(vector(), FaceID(1), ImageID(0))]) }
        #expect(throws: RecognitionError.self) { try gallery.remove(face: FaceID(7)) }
    }
}
