import FaceRecognition
import Testing

/// The collectors keep the k nearest of a stream as sorting the whole stream would: nearest first, ties to the
/// smaller identifier, for k from one to more than the stream holds.
@Suite struct CollectorTests {
    @Test(arguments: [1, 5, 100, 1_500, 5_000])
    func theNearestAreTheSortedStreamsFirst(k: Int) {
        var generator = SystemRandomNumberGenerator()
        // Few distinct distances, so that many tie.
        let matches = (0..<2_000).shuffled(using: &generator).map { id in
            FaceMatch(
                face: FaceID(Int64(id)), image: ImageID(Int64(id)),
                distance: Float(Int.random(in: 0..<50, using: &generator)) / 10)
        }
        var faces = TopFaces(k), images = TopImages(k)
        for match in matches {
            faces.collect(match)
            images.collect(ImageMatch(image: match.image, distance: match.distance, bestFace: match.face))
        }
        let sorted = matches.sorted { ($0.distance, $0.face.rawValue) < ($1.distance, $1.face.rawValue) }.prefix(k)
        #expect(faces.matches == Array(sorted))
        #expect(images.matches.map(\.image) == sorted.map(\.image))
    }
}
