import Foundation
import ImageCodecs
import ImageKernels
import NeuralNetworks
import PhotoSimilarity
import TestSupport
import Testing

/// Photo prints of UKBench photos, decode and resize included, against the independent implementation's
/// (scripts/efficientnet-reference.sh), on each device; and the classifier naming objects no one could
/// mistake.
@Suite struct PhotoPrinterTests {
    struct Reference: Decodable {
        struct Photo: Decodable {
            let file: String
            /// The L2-normalised features, little-endian float32, base64.
            let print: String
            let top5: [Int]
        }

        let photos: [Photo]
    }

    /// ImageNet's classes for the photos whose object is unmistakable.
    static let objects = [
        "ukbench-dev/ukbench00088.jpg": (402, "acoustic guitar"), "ukbench-dev/ukbench00100.jpg": (770, "running shoe"),
        "ukbench-dev/ukbench00132.jpg": (740, "power drill"), "ukbench-dev/ukbench00188.jpg": (662, "modem"),
    ]

    @Test(.needs(.ukbenchDev), arguments: TestDevices.hasOpenCL ? [DeviceChoice.cpu, .opencl] : [.cpu])
    func printsMatchTheReferenceAndClassesAreRight(_ choice: DeviceChoice) throws {
        let reference = try JSONDecoder().decode(
            Reference.self,
            from: Data(
                contentsOf: URL(fileURLWithPath: Repository.referenceFiles + "/efficientnet-lite0-reference.json")))
        let printer = try PhotoPrinter(context: RenderContext(device: try TestDevices.device(choice), fallsBack: false))
        let photos = try reference.photos.map { try ImageDecoder.decode(contentsOf: SharedData.root + "/" + $0.file) }
        let outputs = try printer.printsAndLogits(of: photos)
        for (photo, output) in zip(reference.photos, outputs) {
            let expected = try ReferenceValues.floats(base64: photo.print)
            let cosine = zip(output.print, expected).reduce(0) { $0 + $1.0 * $1.1 }
            // Decoders and resizers may round differently (PIL against libjpeg-turbo, numpy's area weights
            // against ours): the prints agree to a cosine distance of 0.001, far below those between photos.
            #expect(cosine >= 0.999, "\(photo.file) on \(choice): cosine \(cosine) to the reference print")
            let top = output.logits.indices.max { output.logits[$0] < output.logits[$1] }
            if let (expectedClass, name) = Self.objects[photo.file] {
                #expect(top == expectedClass, "\(photo.file) on \(choice) is class \(top ?? -1), not \(name)")
            }
            #expect(top == photo.top5.first || Self.objects[photo.file] == nil)
        }
        #expect(outputs.allSatisfy { abs($0.print.reduce(0) { $0 + $1 * $1 } - 1) < 1e-4 })
    }

    @Test func photosThatAreNotUInt8AreRefused() throws {
        let printer = try PhotoPrinter(context: RenderContext(device: .cpu))
        let float = try PixelBuffer(width: 4, height: 4, values: [Float](repeating: 0, count: 16))
        #expect(throws: PhotoError.self) { try printer.prints(of: [float]) }
        #expect(try printer.prints(of: []).isEmpty)
    }
}
