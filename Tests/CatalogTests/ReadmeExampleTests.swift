import Catalog
import Foundation
import TestSupport
import Testing

/// The README's database example, kept here so that it stays true (paths made absolute, database in a
/// temporary folder).
@Suite(.needs(.wildPhotos)) struct ReadmeDatabaseExampleTests {
    @Test func indexAndSearchAPhoto() async throws {
        var printed: [String] = []  // what the example prints, read below rather than on the console
        func print(_ values: Any...) { printed.append(values.map { "\($0)" }.joined(separator: " ")) }
        let folder = NSTemporaryDirectory() + "cbir-readme-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let datasets = SharedData.root
        let catalog = try Catalog(path: folder + "/cbir.sqlite")  // no model, no device
        let faces = try FaceAnalysis()  // each stage on its fastest device
        // Resumable, idempotent.
        let run = try await catalog.index(folder: "\(datasets)/wild-photos/train", analyses: [faces])
        // By embedding.
        let found = try await catalog.search(photo: "\(datasets)/wild-photos/test/obama1.jpg", faces: faces, top: 3)
        print(found.probe.face.width, found.images.map(\.path))  // nearest first
        #expect(run.indexed == 9 && printed.count == 1 && printed[0].contains("/train/obama/"))
        #expect(found.images.count == 3 && found.images.first?.path.contains("/train/obama/") == true)
    }
}
