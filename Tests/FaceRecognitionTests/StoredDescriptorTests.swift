import BenchmarkSupport
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// The stored form of descriptors: real faces' descriptors come back bit for bit from a tenth of the
/// bytes, anything else comes back exactly too, and a damaged form is a typed error.
@Suite(.needs(.orl)) struct StoredDescriptorTests {
    static let devices: [DeviceChoice] = TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu]

    /// The standard descriptor (1-byte counts), Tan–Triggs with uniform patterns (59 bins, a 7-bit
    /// bitmap tail), and blocks of more than 256 pixels (2-byte counts).
    static let parameterSets: [DescriptorParameters] = [
        .standard, DescriptorParameters(gamma: 0.2, sigmas: [1, 2], equalizes: true, pattern: .basic, uniform: true),
        DescriptorParameters(faceSize: 200, gridColumns: 3, gridRows: 5),
    ]

    @Test(arguments: devices, parameterSets)
    func facesComeBackBitForBit(_ choice: DeviceChoice, _ parameters: DescriptorParameters) throws {
        let crops = try (1...10).map {
            try ImageDecoder.decode(contentsOf: "\(SharedData.root)/orl/s\($0)/\($0 % 10 + 1).pgm")
        }
        let describer = try FaceDescriber(
            parameters: parameters, context: RenderContext(device: try TestDevices.device(choice)))
        for descriptor in try describer.describe(crops) {
            let stored = descriptor.encoded()
            let back = try FaceDescriptor(parameters: parameters, encoded: stored)
            #expect(back.histograms.map(\.bitPattern) == descriptor.histograms.map(\.bitPattern))
            #expect(
                stored.count < 4 * parameters.length / (parameters == .standard ? 8 : 1),
                "\(stored.count) bytes for \(parameters.length) values (\(parameters))")
        }
    }

    /// Values that are not block counts (random ones; a count off by a little) are kept raw and come
    /// back exactly.
    @Test func otherValuesComeBackExactly() throws {
        var generator = SeededGenerator()
        let parameters = DescriptorParameters.standard
        let random = RandomGallery.descriptor(parameters, using: &generator)
        let counted = try FaceDescriber(parameters: parameters, context: RenderContext(device: .cpu))
            .describe([try ImageDecoder.decode(contentsOf: "\(SharedData.root)/orl/s3/4.pgm")])[0]
        var nudged = counted.histograms
        let bin = try #require(nudged.indices.first { nudged[$0] > 0 })
        nudged[bin] = nudged[bin].nextUp
        for descriptor in [random, try FaceDescriptor(parameters: parameters, histograms: nudged)] {
            let stored = descriptor.encoded()
            #expect(stored.count == 1 + 4 * parameters.length, "seed \(generator.seed)")
            #expect(
                try FaceDescriptor(parameters: parameters, encoded: stored).histograms.map(\.bitPattern)
                    == descriptor.histograms.map(\.bitPattern))
        }
    }

    /// Empty, of an unknown form, cut short, with bytes left over, with more codes than pixels in a
    /// block, raw values of the wrong count: each a `damagedDescriptor` error saying which.
    @Test func damagedFormsAreErrors() throws {
        let parameters = DescriptorParameters.standard
        let stored = try FaceDescriber(parameters: parameters, context: RenderContext(device: .cpu))
            .describe([try ImageDecoder.decode(contentsOf: "\(SharedData.root)/orl/s5/2.pgm")])[0].encoded()
        var overfull = stored
        overfull[1] = 0xff  // block 0: bins 0–7 all nonzero, so the counts that follow are read shifted
        overfull[33] = 0xff
        let damaged: [(Data, String)] = [
            (Data(), "empty"), (Data([7]) + stored.dropFirst(), "unknown stored form 7"),
            (stored.dropLast(), "ends in block 63"),
            (stored + Data([0]), "1 bytes after the last block"), (Data([0]) + Data(count: 12), "3 values for 16384"),
        ]
        for (data, reason) in damaged {
            #expect {
                _ = try FaceDescriptor(parameters: parameters, encoded: data)
            } throws: { error in
                (error as? RecognitionError).map { "\($0)".contains(reason) } == true
            }
        }
        #expect(throws: RecognitionError.self) { _ = try FaceDescriptor(parameters: parameters, encoded: overfull) }
    }
}
