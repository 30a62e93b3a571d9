import FaceRecognition
import TestSupport

/// Random descriptors shaped like real ones: each block a sparse histogram summing to 1.
enum RandomGallery {
    static func descriptor(_ parameters: DescriptorParameters, using generator: inout SeededGenerator) -> FaceDescriptor {
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

    /// `faces` faces spread over images of one to three faces.
    static func entries(_ parameters: DescriptorParameters, faces: Int,
                        using generator: inout SeededGenerator) -> [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)] {
        var image: Int64 = 100, left = 0
        return (0..<faces).map { index in
            if left == 0 {
                image += 1
                left = Int.random(in: 1...3, using: &generator)
            }
            left -= 1
            return (descriptor(parameters, using: &generator), FaceID(Int64(index) * 7 + 3), ImageID(image))
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
