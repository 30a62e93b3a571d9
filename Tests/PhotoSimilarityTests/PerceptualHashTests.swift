import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels
import PhotoSimilarity
import ReferenceFilters
import TestSupport
import Testing

/// The DCT kernel against the plain reference on random planes, and the hashes against those an
/// independent numpy implementation computed (scripts/efficientnet-reference.sh).
@Suite struct PerceptualHashTests {
    struct Reference: Decodable {
        struct Hash: Decodable {
            let file: String
            /// The 32 × 32 grey thumbnail hashed, uint8, base64.
            let thumbnail: String
            /// Sixteen hexadecimal digits.
            let hash: String
        }

        let hashes: [Hash]

        static func load() throws -> Reference {
            try JSONDecoder().decode(
                Reference.self,
                from: Data(
                    contentsOf: URL(fileURLWithPath: Repository.referenceFiles + "/perceptual-hash-reference.json")))
        }
    }

    static let devices: [(String, Device?, DeviceKind?)] = {
        var devices: [(String, Device?, DeviceKind?)] = [("CPU", .cpu, nil)]
        if TestDevices.hasOpenCL {
            let openCL = try? TestDevices.openCL.get()
            devices += [("OpenCL", openCL, nil), ("OpenCL, GPU schedules", openCL, .openCL(.gpu))]
        }
        return devices
    }()

    @Test(arguments: 0..<devices.count)
    func lowFrequenciesMatchTheReference(_ index: Int) throws {
        let (name, device, schedules) = Self.devices[index]
        let context = RenderContext(device: try #require(device), fallsBack: false)
        context.useSchedules(of: schedules)
        var generator = SeededGenerator()
        for (width, height) in [
            (32, 32), (TestImages.oddSize(9...41, using: &generator), TestImages.oddSize(9...41, using: &generator)),
        ] {
            let planes = TestImages.random(
                ImageDescriptor(width: width, height: height, batch: 3, elementType: .uint8), using: &generator)
            let rendered = try context.render(Image(planes).lowFrequencyDCT(count: 8)).floatValues
            let expected = ReferenceFilters.Reference.lowFrequencyDCT(planes, count: 8).floatValues
            let scale = expected.map(abs).max() ?? 1
            let error = zip(rendered, expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(error <= 1e-5 * scale, "\(width)×\(height) on \(name), seed \(generator.seed): off by \(error)")
        }
    }

    /// The numpy implementation's thumbnails hash to its hashes here, on each device; and our own
    /// thumbnails of the photos (our decoder, grey and resize) hash to within 2 bits of them.
    @Test(.needs(.ukbenchDev), arguments: TestDevices.hasOpenCL ? [DeviceChoice.cpu, .opencl] : [.cpu])
    func hashesMatchTheIndependentOnes(_ choice: DeviceChoice) throws {
        let context = RenderContext(device: try TestDevices.device(choice), fallsBack: false)
        for reference in try Reference.load().hashes {
            let thumbnail = try PixelBuffer(
                width: 32, height: 32, values: try ReferenceValues.bytes(base64: reference.thumbnail))
            let ofThumbnail = try PerceptualHash.hashes(ofGray: [thumbnail], context: context)[0]
            #expect(ofThumbnail.description == reference.hash, "\(reference.file) on \(choice)")
            let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/" + reference.file)
            let ofPhoto = try PerceptualHash.hashes(ofGray: [try context.grayPlane(of: photo)], context: context)[0]
            #expect(
                ofPhoto.distance(to: ofThumbnail) <= 2,
                "\(reference.file) on \(choice): \(ofPhoto) against \(reference.hash)")
        }
    }

    @Test func hashesReadAndCount() {
        let hash = PerceptualHash(lowFrequencies: (0..<64).map { Float($0) })
        #expect(hash.bits == 0x0000_0000_FFFF_FFFF && hash.description == "00000000ffffffff")
        #expect(hash.distance(to: PerceptualHash(bits: 0)) == 32)
        #expect(PerceptualHash(bits: 0x0F).description == "000000000000000f")
    }

    @Test func closePairsAreEveryPairWithinTheDistance() {
        var generator = SeededGenerator()
        // Random hashes and copies of some of them with a few bits flipped.
        var hashes = (0..<Int.random(in: 200...700, using: &generator)).map { _ in
            PerceptualHash(bits: UInt64.random(in: .min ... .max, using: &generator))
        }
        for _ in 0..<hashes.count / 2 {
            let flips = (0..<Int.random(in: 0...12, using: &generator)).reduce(UInt64(0)) { bits, _ in
                bits | 1 << UInt64.random(in: 0..<64, using: &generator)
            }
            hashes.append(
                PerceptualHash(bits: hashes[Int.random(in: 0..<hashes.count, using: &generator)].bits ^ flips))
        }
        let distance = Int.random(in: 4...12, using: &generator)
        let expected = hashes.indices.flatMap { a in
            hashes.indices.filter { $0 > a && hashes[a].distance(to: hashes[$0]) <= distance }.map { [a, $0] }
        }
        let found = PerceptualHash.pairs(in: hashes, within: distance).map { [$0.0, $0.1] }
        #expect(!expected.isEmpty && found == expected, "\(hashes.count) hashes, seed \(generator.seed)")
    }

    @Test func everyKernelMatchesItsSource() throws {
        let problems = try KernelSourceChecks.problems(
            module: "PhotoSimilarity", kernels: PhotoSimilarityLibrary.kernels)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func colourPlanesAreRefused() throws {
        let rgb = try PixelBuffer(width: 4, height: 4, channels: 3, values: [UInt8](repeating: 0, count: 48))
        #expect(throws: PhotoError.self) {
            try PerceptualHash.hashes(ofGray: [rgb], context: RenderContext(device: .cpu))
        }
    }
}
