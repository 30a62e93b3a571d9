import Catalog
import Foundation
import GRDB
import ImageKernels
import NeuralNetworks
import PhotoSimilarity
import TestSupport
import Testing

/// Photos found by words in a catalog: indexing stores each photo's classes with its print, a word ranks the
/// photos that show it first, a photo whose file went is left out, and photos printed before classes were
/// kept get them from the next `cbir index` without anything else being lost.
@Suite(
    .serialized, .needs(.caltechDev),
    .enabled(
        if: WordNetNouns.isInstalled()
            && FileManager.default.fileExists(atPath: ModelCache.path(of: ImageNetClasses.file)),
        "needs WordNet 3.0 and the class list (bash scripts/setup.sh)"))
struct WordPhotoSearchTests {
    /// Three photos each of crabs, laptops, sunflowers and Caltech's unrelated backgrounds.
    static func folder() throws -> String {
        let folder = try IndexingTests.temporaryFolder() + "/photos"
        try SharedDataset.copyCaltechPhotos(
            of: ["crab", "laptop", "sunflower", "BACKGROUND_Google"], count: 3, into: folder)
        return folder
    }

    /// The folders of the photos `words` finds, best first.
    static func kinds(_ catalog: Catalog, _ words: String, top: Int? = nil) throws -> [String] {
        try catalog.photos(showing: try WordClasses().query([words]), top: top).map {
            (FileSystemPath.folder(of: $0.path) as NSString).lastPathComponent
        }
    }

    @Test func photosAreFoundByWhatTheyShow() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let catalog = try Catalog(path: folder + "/../cbir.sqlite")
        let run = try await catalog.index(
            folder: folder, analyses: [try PhotoPrintAnalysis(context: try IndexingTests.context())])
        #expect(run.indexed == 12 && run.failed == 0)
        #expect(try Self.kinds(catalog, "crab").prefix(3) == ["crab", "crab", "crab"])
        #expect(try Self.kinds(catalog, "laptops").prefix(3) == ["laptop", "laptop", "laptop"])
        // No class is a sunflower: the nearest, the daisy, finds them.
        #expect(try Self.kinds(catalog, "sunflower", top: 3) == ["sunflower", "sunflower", "sunflower"])
        #expect(try Self.kinds(catalog, "crab", top: 1) == ["crab"])
        let scores = try catalog.photos(showing: try WordClasses().query(["crab"]), top: nil).map(\.score)
        #expect(scores == scores.sorted(by: >) && scores.allSatisfy { $0 > 0 && $0 <= 1 })

        try FileManager.default.removeItem(atPath: folder + "/crab/image_0001.jpg")
        let found = try catalog.photos(showing: try WordClasses().query(["crab"]), top: 3)
        #expect(found.count == 3 && !found.contains { $0.path.hasSuffix("crab/image_0001.jpg") })
        #expect(found.prefix(2).allSatisfy { $0.path.contains("/crab/") })
    }

    @Test func photosPrintedBeforeClassesGetThemFromTheNextIndex() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let catalog = try Catalog(path: folder + "/../cbir.sqlite")
        let analyses = [try PhotoPrintAnalysis(context: try IndexingTests.context())]
        _ = try await catalog.index(folder: folder, analyses: analyses)
        _ = try await catalog.write { db in try db.execute(sql: "UPDATE photo_prints SET classes = NULL") }
        #expect(try !catalog.hasPhotoClasses() && Self.kinds(catalog, "crab").isEmpty)
        #expect(try catalog.statistics().printedImages == 12, "the prints are kept")

        let upgrade = try await catalog.index(folder: folder, analyses: analyses)
        #expect(upgrade.upgraded == 12 && upgrade.indexed == 0, "\(upgrade)")
        #expect(try catalog.hasPhotoClasses() && Self.kinds(catalog, "crab").prefix(3) == ["crab", "crab", "crab"])
        let again = try await catalog.index(folder: folder, analyses: analyses)
        #expect(again.unchanged == 12 && again.upgraded == 0)
    }

    /// Classes that cannot be read (a byte short, a class past the classifier's) are passed over by searches,
    /// named by `check`, and made again by the next `cbir index`; the other photos are found as before.
    @Test func damagedClassesArePassedOverAndMadeAgain() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let path = folder + "/../cbir.sqlite"
        let catalog = try Catalog(path: path)
        let analyses = [try PhotoPrintAnalysis(context: try IndexingTests.context())]
        _ = try await catalog.index(folder: folder, analyses: analyses)
        let crabs = try catalog.photos(showing: try WordClasses().query(["crab"]), top: 3)
        let damaged = try #require(crabs.first?.image)
        _ = try await catalog.write { db in
            try db.execute(
                sql: "UPDATE photo_prints SET classes = ? WHERE image_id = ?",
                arguments: [Data([1, 2, 3, 4, 5]), damaged])
            try db.execute(
                sql: "UPDATE photo_prints SET classes = ? WHERE image_id = ?",
                arguments: [Data([0xff, 0xff, 0, 0, 0, 0]), crabs[1].image])
        }
        let found = try catalog.photos(showing: try WordClasses().query(["crab"]), top: 3)
        #expect(found.count == 3 && !found.contains { $0.image == damaged || $0.image == crabs[1].image })
        #expect(found.first?.image == crabs[2].image)
        let check = try Catalog.check(path: path)
        #expect(check.problems.filter { $0.contains("its classes (to find it by words) are damaged") }.count == 2)

        let upgrade = try await catalog.index(folder: folder, analyses: analyses)
        #expect(upgrade.upgraded == 2 && upgrade.indexed == 0, "\(upgrade)")
        #expect(
            try catalog.photos(showing: try WordClasses().query(["crab"]), top: 3).map(\.image) == crabs.map(\.image))
        #expect(try Catalog.check(path: path).isSound)
    }
}
