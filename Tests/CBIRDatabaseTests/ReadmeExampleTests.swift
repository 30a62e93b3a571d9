import CBIRDatabase
import Foundation
import Testing
import TestSupport

/// The README's database example, kept here so that it stays true (paths made absolute, database in a
/// temporary folder).
@Suite struct ReadmeDatabaseExampleTests {
    @Test func indexAndSearchAPhoto() async throws {
        let folder = NSTemporaryDirectory() + "cbir-readme-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let datasets = SharedData.root
        let database = try CBIRDatabase(path: folder + "/cbir.sqlite", indexers: [try FaceIndexer()])   // each stage on its fastest device
        let run = try await database.index(folder: "\(datasets)/wild-photos/train")     // resumable, idempotent
        let found = try await database.search(photo: "\(datasets)/wild-photos/test/obama1.jpg", matcher: .nbnn, top: 3)
        print(found.probe.face.width, found.images.map(\.path))                          // nearest first
        #expect(run.indexed == 9)
        #expect(found.images.count == 3 && found.images.first?.path.contains("/train/obama/") == true)
    }
}
