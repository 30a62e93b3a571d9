import Foundation
import ImageCodecs
import ImageKernels
import TestSupport

/// dlib's own outputs for the shared photos (scripts/dlib-reference.sh wrote them with dlib 20.0.1).
struct DlibReference: Decodable {
    struct Face: Decodable {
        let photo: String
        let width: Int
        let height: Int
        /// left, top, right, bottom (inclusive).
        let box: [Int]
        let landmarks: [[Double]]
        let descriptor: [Float]
        let chip: String?
    }

    let dlib: String
    let faces: [Face]

    static let folder = Repository.referenceFiles

    static func load() throws -> DlibReference {
        try JSONDecoder().decode(
            DlibReference.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/dlib-reference.json")))
    }

    /// A chip dlib wrote, as a uint8 RGB buffer.
    static func chip(_ name: String) throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOf: folder + "/" + name)
    }
}
