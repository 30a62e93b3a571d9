import FaceRecognition
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// The README's face-search example, kept here so that it stays true (dataset path made absolute).
@Suite(.needs(.orl)) struct ReadmeFaceSearchExampleTests {
    @Test func describeAndSearch() throws {
        var printed: [String] = []  // what the example prints, read below rather than on the console
        func print(_ values: Any...) { printed.append(values.map { "\($0)" }.joined(separator: " ")) }
        let context = try RenderContext()
        // 128×128, LBP(8,2), 8×8 blocks × 256 bins
        let describer = try FaceDescriber(parameters: .standard, context: context)
        let crops = try (1...10).map { try ImageDecoder.decode(contentsOf: "\(SharedData.root)/orl/s1/\($0).pgm") }
        let faces = try describer.describe(crops)  // one pass through the graph for the batch

        let gallery = Gallery(parameters: describer.parameters, context: context)  // kept on the device between queries
        try gallery.append(faces.indices.dropFirst().map { (faces[$0], FaceID(Int64($0)), ImageID(1)) })
        var top = TopFaces(3)
        try gallery.search(faces[0], options: SearchOptions(matcher: .nbnn, weights: .uniform()), into: &top)
        print(top.matches)  // nearest first
        #expect(top.matches.count == 3 && printed.count == 1)
        #expect(top.matches.map(\.distance) == top.matches.map(\.distance).sorted())
    }
}
