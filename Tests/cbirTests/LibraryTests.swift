import Foundation
import TestSupport
import Testing

/// A library named by its root (`cbir index FOLDER --library NAME`): two machines that mount it in different
/// places share one catalog and see each photo once, and a photo moved or renamed inside it keeps its name.
@Suite(.serialized, .needs(.wildPhotos)) struct LibraryTests {
    typealias NewDatabase = DatabaseCommandTests.NewDatabase
    static let train = DatabaseCommandTests.photos + "/train"

    /// Machine a indexes the library at a/photos and names a face; machine b mounts the same files at b/photos:
    /// its run finds every photo stored, shows them under its own root, and a file renamed there keeps its name.
    @Test(arguments: TestStore.allCases) func twoMachinesSeeOnePhotoOnceAndAMovedPhotoKeepsItsName(store: TestStore)
        throws
    {
        let database = try NewDatabase(on: store)
        defer { try? FileManager.default.removeItem(atPath: database.folder) }
        let (a, b) = (database.folder + "/a/photos", database.folder + "/b/photos")
        for (machine, root) in [("a", a), ("b", b)] {
            try FileManager.default.createDirectory(
                atPath: database.folder + "/" + machine, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.train, toPath: root)
        }
        let onA = ["FACESEARCH_MACHINE": "a"], onB = ["FACESEARCH_MACHINE": "b"]
        let first = try database.run(["index", a, "--library", "family", "--no-photos"], environment: onA)
        #expect(first.standardOutput.contains("9 indexed"), "\(first.standardOutput)")
        #expect(
            try database.run(["label", a + "/biden/biden.jpg", "Joe"], environment: onA).standardOutput.hasSuffix(
                ": Joe\n"))

        let second = try database.run(["index", b, "--library", "family", "--no-photos"], environment: onB)
        #expect(second.standardOutput.contains("0 indexed, 9 unchanged"), "\(second.standardOutput)")
        let statistics = try database.json(DatabaseCommandTests.Statistics.self, ["stats"], environment: onB)
        #expect(statistics.images == 9 && statistics.labelledFaces == 1, "\(statistics)")
        let query = try database.json(
            DatabaseCommandTests.QueryReport.self, ["query", DatabaseCommandTests.photos + "/test/obama1.jpg"],
            environment: onB)
        #expect(!query.images.isEmpty && query.images.allSatisfy { $0.path.hasPrefix(b + "/") }, "\(query.images)")

        try FileManager.default.createDirectory(atPath: b + "/renamed", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: b + "/biden/biden.jpg", toPath: b + "/renamed/joe.jpg")
        let moved = try database.run(["index", b, "--no-photos"], environment: onB)
        #expect(moved.standardOutput.contains("0 indexed, 9 unchanged") && moved.standardOutput.contains("1 moved"))
        let labels = database.folder + "/labels.json"
        _ = try database.run(["labels", "--export", labels], environment: onB)
        let exported = try JSONDecoder().decode([Label].self, from: Data(contentsOf: URL(fileURLWithPath: labels)))
        #expect(exported.map(\.path) == [b + "/renamed/joe.jpg"] && exported.map(\.label) == ["Joe"], "\(exported)")
        // Machine a, whose root holds the file at its old name, moves the row back rather than index it twice.
        let back = try database.run(["index", a, "--no-photos"], environment: onA)
        #expect(back.standardOutput.contains("0 indexed, 9 unchanged") && back.standardOutput.contains("1 moved"))
    }

    struct Label: Decodable {
        let path: String
        let label: String
    }

    /// A library's name that would not survive in a stored path, and a root inside another library's root,
    /// are refused with a sentence that says why; nothing is indexed.
    @Test func badLibrariesAreRefused() throws {
        let database = try NewDatabase()
        defer { try? FileManager.default.removeItem(atPath: database.folder) }
        let cbir = database.cbir
        for name in ["a/b", "c:d", ""] {
            let refused = try cbir.run(["index", Self.train + "/biden", "--library", name] + database.db)
            #expect(
                refused.status != 0 && refused.standardError.contains("a library's name is"), "\(refused.standardError)"
            )
        }
        _ = try database.run(["index", Self.train + "/biden", "--library", "family", "--no-photos"])
        let nested = try cbir.run(["index", Self.train, "--library", "friends", "--no-photos"] + database.db)
        #expect(
            nested.status != 0 && nested.standardError.contains("library family's root here is"),
            "\(nested.standardError)")
        #expect(try database.json(DatabaseCommandTests.Statistics.self, ["stats"]).images == 2)
    }
}
