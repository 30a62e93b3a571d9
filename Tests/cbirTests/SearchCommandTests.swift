import Foundation
import TestSupport
import Testing

/// `cbir search` end to end on Caltech-101 photos, on each store: index four kinds of thing without faces,
/// then find them by words; unknown words, and a catalog with no classes yet, are told plainly.
@Suite(.needs(.caltechDev)) struct SearchCommandTests {
    struct Report: Decodable {
        struct Result: Decodable {
            let path: String
            let score: Float
        }
        let words: [String]
        let results: [Result]
    }

    /// Four photos each of crabs, laptops, sunflowers and unrelated backgrounds, indexed without faces.
    static func indexedFolder(on store: TestStore) throws -> (folder: String, database: String) {
        let folder = temporaryPath("search"), photos = folder + "/photos"
        try SharedDataset.copyCaltechPhotos(
            of: ["crab", "laptop", "sunflower", "BACKGROUND_Google"], count: 4, into: photos)
        let database = try store.catalog(in: folder, name: "search")
        let index = try CommandRunner(product: "cbir").run(["index", photos, "--db", database, "--no-faces"])
        #expect(index.status == 0 && index.standardOutput.contains("16 photos printed"), "\(index)")
        return (folder, database)
    }

    @Test(arguments: TestStore.allCases) func photosAreFoundByWords(store: TestStore) throws {
        let (folder, database) = try Self.indexedFolder(on: store)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cbir = try CommandRunner(product: "cbir")
        let crabs = try cbir.run(["search", "crabs", "--db", database, "--top", "3", "--json"])
        #expect(crabs.status == 0, "\(crabs.standardError)")
        let report = try JSONDecoder().decode(Report.self, from: Data(crabs.standardOutput.utf8))
        #expect(report.words == ["crabs"] && report.results.count == 3)
        #expect(report.results.allSatisfy { $0.path.contains("/photos/crab/") }, "\(report.results)")
        #expect(report.results.map(\.score) == report.results.map(\.score).sorted(by: >))

        let sheet = folder + "/sunflowers.png"
        let sunflowers = try cbir.run(["search", "sunflower", "--db", database, "--top", "4", "--sheet", sheet])
        #expect(sunflowers.status == 0 && sunflowers.standardError.contains("nearest in WordNet instead (daisy"))
        let lines = sunflowers.standardOutput.split(separator: "\n")
        #expect(lines.count == 4 && lines.allSatisfy { $0.contains("/photos/sunflower/") }, "\(lines)")
        #expect(FileManager.default.fileExists(atPath: sheet))

        let unknown = try cbir.run(["search", "laptop", "qwzx", "--db", database])
        #expect(unknown.status != 0 && unknown.standardError.contains("knows no noun \"qwzx\""), "\(unknown)")
    }

    @Test func aCatalogWithoutClassesSaysHowToGetThem() throws {
        let folder = temporaryPath("search-empty"), photos = folder + "/photos"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: SharedData.root + "/caltech-dev/crab/image_0001.jpg", toPath: photos + "/crab.jpg")
        let database = folder + "/cbir.sqlite"
        let cbir = try CommandRunner(product: "cbir")
        #expect(try cbir.run(["index", photos, "--db", database, "--no-photos"]).status == 0)
        let search = try cbir.run(["search", "crab", "--db", database])
        #expect(search.status != 0 && search.standardError.contains("no photo has classes"), "\(search)")
    }
}
