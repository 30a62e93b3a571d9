import Foundation
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// `cbir duplicates` end to end: one UKBench photo and three copies of it (byte-identical, half size,
/// re-encoded at JPEG quality 30) among the first views of nine other objects.
@Suite struct DuplicatesCommandTests {
    struct Group: Decodable, Equatable {
        struct Member: Decodable, Equatable {
            let path: String
            let distance: Float
        }
        let best: String
        let photos: [Member]
        let bytes: Int
    }

    @Test func copiesAreGroupedWithTheirOriginalAndNothingElse() throws {
        let folder = temporaryPath("duplicates"), photos = folder + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for number in stride(from: 0, to: 40, by: 4) {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: photos + "/" + name)
        }
        let original = photos + "/ukbench00000.jpg"
        try FileManager.default.copyItem(atPath: original, toPath: photos + "/z-identical.jpg")
        let pixels = try ImageDecoder.decode(contentsOf: original)
        let half = try RenderContext(device: .cpu).render(
            Image(pixels).resized(
                width: pixels.descriptor.width / 2, height: pixels.descriptor.height / 2, method: .area))
        try ImageEncoder.write(half, to: photos + "/z-half.jpg", quality: 90)
        try ImageEncoder.write(pixels, to: photos + "/z-quality-30.jpg", quality: 30)

        let cbir = try CommandRunner(product: "cbir"), database = folder + "/cbir.sqlite"
        let index = try cbir.run(["index", photos, "--db", database, "--no-faces"])
        #expect(index.status == 0 && index.standardOutput.contains("13 photos printed"), "\(index)")
        let output = try cbir.run(["duplicates", "--db", database, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let groups = try JSONDecoder().decode([Group].self, from: Data(output.standardOutput.utf8))
        #expect(groups.count == 1, "\(output.standardOutput)")
        let group = try #require(groups.first)
        let names = group.photos.map { ($0.path as NSString).lastPathComponent }
        #expect(group.best == original && names.first == "ukbench00000.jpg")
        #expect(Set(names) == ["ukbench00000.jpg", "z-identical.jpg", "z-half.jpg", "z-quality-30.jpg"])
        #expect(group.photos.first { $0.path.hasSuffix("z-identical.jpg") }?.distance == 0)
        let sizes = try ["z-identical.jpg", "z-half.jpg", "z-quality-30.jpg"].map {
            try FileManager.default.attributesOfItem(atPath: photos + "/" + $0)[.size] as? Int ?? 0
        }
        #expect(group.bytes == sizes.reduce(0, +))

        for threshold in ["nan", "-0.1", "2.5"] {
            let refused = try cbir.run(["duplicates", "--db", database, "--threshold", threshold])
            #expect(refused.status != 0 && refused.standardError.contains("--threshold"), "\(threshold): \(refused)")
        }
    }
}
