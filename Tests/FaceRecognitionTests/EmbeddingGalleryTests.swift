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
        // Several probes at once (a print's length, odd lengths past the eight-lane loops) find what each
        // finds alone.
        for length in [1280, 13, 7] {
            let rows = EmbeddingGallery(length: length, context: gallery.context)
            let vectors = (0..<45).map { _ in (0..<length).map { _ in Float.random(in: -1..<1, using: &generator) } }
            try rows.append(vectors.enumerated().map { ($1, FaceID(Int64($0)), ImageID(Int64($0 / 2))) })
            let probes = (0..<5).map { _ in (0..<length).map { _ in Float.random(in: -1..<1, using: &generator) } }
            var together = probes.map { _ in Everything() }
            try rows.search(probes, into: &together)
            for (probe, found) in zip(probes, together) {
                var alone = Everything()
                try rows.search(probe, into: &alone)
                #expect(found.faces.count == 45 && found.images.count == 23)
                #expect(found.faces.sorted { $0.face < $1.face } == alone.faces.sorted { $0.face < $1.face })
                #expect(found.images.sorted { $0.image < $1.image } == alone.images.sorted { $0.image < $1.image })
                for match in found.faces {
                    let expected = zip(probe, vectors[Int(match.face.rawValue)]).map { ($0 - $1) * ($0 - $1) }
                        .reduce(0, +).squareRoot()
                    #expect(abs(match.distance - expected) <= 1e-4 * max(1, expected), "length \(length) on \(choice)")
                }
            }
            var wrong = [Everything()]
            #expect(throws: RecognitionError.self) { try rows.search([probes[0], probes[1]], into: &wrong) }
        }

        #expect(throws: RecognitionError.self) { try gallery.append([(vector(), FaceID(1), ImageID(0))]) }
        #expect(throws: RecognitionError.self) { try gallery.remove(face: FaceID(7)) }
    }
}
