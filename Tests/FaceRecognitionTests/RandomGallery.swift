import BenchmarkSupport
import FaceRecognition
import TestSupport

/// Random descriptors shaped like real ones: each block a sparse histogram summing to 1.
enum RandomGallery {
    static func descriptor(_ parameters: DescriptorParameters, using generator: inout SeededGenerator) -> FaceDescriptor
    {
        var values: [Float] = []
        for _ in 0..<parameters.blockCount {
            var block = (0..<parameters.bins).map { _ -> Float in
                Float.random(in: 0..<1, using: &generator) < 0.4 ? Float.random(in: 0..<1, using: &generator) : 0
            }
            if block.allSatisfy({ $0 == 0 }) { block[0] = 1 }
            let total = block.reduce(0, +)
            values += block.map { $0 / total }
        }
        // The count matches the parameters by construction.
        return try! FaceDescriptor(parameters: parameters, histograms: values)
    }

    /// Random descriptors of the kind real faces have: per block, code counts times 1 / its pixel count, so
    /// they are stored as counts. A block's codes fall in a few of its bins, most in one; one face in
    /// seven has a block all in one bin, and one in five a block with codes to spare (fewer than its pixels).
    static func countedDescriptor(_ parameters: DescriptorParameters, using generator: inout SeededGenerator)
        -> FaceDescriptor
    {
        var values: [Float] = []
        let uniform = Int.random(in: 0..<7, using: &generator) == 0,
            short = Int.random(in: 0..<5, using: &generator) == 0
        for (block, pixels) in parameters.blockPixelCounts.enumerated() {
            var counts = [Int](repeating: 0, count: parameters.bins)
            let used = (0..<Int.random(in: 2...20, using: &generator)).map { _ in
                Int.random(in: 0..<parameters.bins, using: &generator)
            }
            let codes = short && block == 1 ? pixels / 2 : pixels
            for _ in 0..<codes {
                let bin =
                    uniform && block == 0
                    ? used[0] : Bool.random(using: &generator) ? used[0] : used.randomElement(using: &generator)!
                counts[bin] += 1
            }
            let scale = 1 / Float(pixels)
            values += counts.map { Float($0) * scale }
        }
        return try! FaceDescriptor(parameters: parameters, histograms: values)
    }

    /// `faces` faces spread over images of one to three faces; `counted` makes them with
    /// ``countedDescriptor(_:using:)``.
    static func entries(
        _ parameters: DescriptorParameters, faces: Int, counted: Bool = false,
        using generator: inout SeededGenerator
    ) -> [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)] {
        var image: Int64 = 100, left = 0
        return (0..<faces).map { index in
            if left == 0 {
                image += 1
                left = Int.random(in: 1...3, using: &generator)
            }
            left -= 1
            let made =
                counted ? countedDescriptor(parameters, using: &generator) : descriptor(parameters, using: &generator)
            return (made, FaceID(Int64(index) * 7 + 3), ImageID(image))
        }
    }
}

/// Collects everything a search reports.
struct Everything: MatchCollector {
    var faces: [FaceMatch] = []
    var images: [ImageMatch] = []
    mutating func collect(_ match: FaceMatch) { faces.append(match) }
    mutating func collect(_ match: ImageMatch) { images.append(match) }
}
