import Catalog
import FaceRecognition
import Foundation
import GRDB
import ImageKernels
import PhotoSimilarity
import TestSupport
import Testing

/// The photo analysis in indexing: every photo printed, hashed and measured in its transaction; a
/// catalog indexed without prints gets them from the next run without its faces being found again.
@Suite(.serialized, .needs(.ukbenchDev)) struct PhotoPrintIndexingTests {
    /// Six UKBench photos: the four views of object 0 and two other objects.
    static func folder() throws -> String {
        let folder = try IndexingTests.temporaryFolder() + "/photos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for number in [0, 1, 2, 3, 88, 100] {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: folder + "/" + name)
        }
        return folder
    }

    @Test func photosArePrintedHashedAndMeasured() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let context = try IndexingTests.context()
        let catalog = try Catalog(path: folder + "/../cbir.sqlite")
        let run = try await catalog.index(folder: folder, analyses: [try PhotoPrintAnalysis(context: context)])
        #expect(run.indexed == 6 && run.failed == 0)
        #expect(try catalog.statistics().printedImages == 6)
        let rows = try catalog.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT path, print, photo_prints.hash, sharpness FROM photo_prints \
                    JOIN images ON images.id = image_id ORDER BY path
                    """)
        }
        let prints = rows.map { row in (row[1] as Data).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } }
        #expect(prints.allSatisfy { $0.count == PhotoPrinter.length && abs($0.reduce(0) { $0 + $1 * $1 } - 1) < 1e-3 })
        #expect(rows.allSatisfy { ($0[3] as Double) > 0 } && Set(rows.map { $0[2] as Int64 }).count == 6)
        func distance(_ a: Int, _ b: Int) -> Float { 1 - zip(prints[a], prints[b]).reduce(0) { $0 + $1.0 * $1.1 } }
        // The views of one object lie closer to each other than to any other object.
        let within = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)].map { distance($0.0, $0.1) }.max() ?? 1
        let across = (0..<4).flatMap { a in [4, 5].map { distance(a, $0) } }.min() ?? 0
        #expect(within < across, "within \(within), across \(across)")
    }

    /// A new process (here a new catalog on the same file) ranks the prints of the file beside the database,
    /// which the first search that read them all wrote, while the file's tag is the database's.
    @Test func newProcessesReadThePrintsFileWhileItHoldsTheDatabasesPrints() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let context = try IndexingTests.context(), path = folder + "/../cbir.sqlite", file = path + "-prints"
        _ = try await Catalog(path: path).index(folder: folder, analyses: [try PhotoPrintAnalysis(context: context)])
        let query = try #require(try Catalog(path: path).storedPrint(ofPhotoAt: folder + "/ukbench00000.jpg"))
        func ranked() throws -> [SimilarPhoto] {
            try Catalog(path: path).similarPhotos(to: query, top: 10, context: context)
        }
        #expect(!FileManager.default.fileExists(atPath: file))
        let all = try ranked()
        #expect(all.count == 6 && FileManager.default.fileExists(atPath: file), "the first search wrote the file")
        #expect(try ranked() == all)

        // Trusted while its tag is the database's: a file of one print with that tag is all a new process ranks.
        let tag = try #require(
            try Catalog(path: path).read { db in
                try Data.fetchOne(db, sql: "SELECT tag FROM table_tags WHERE name = 'photo_prints'")
            })
        let single = EmbeddingGallery(length: PhotoPrinter.length, context: context)
        try single.append([(query, FaceID(all[0].image), ImageID(all[0].image))])
        try single.write(to: file, tag: tag)
        #expect(try ranked().count == 1)
        // Passed over once the prints change.
        try await Catalog(path: path).write { db in
            try db.execute(sql: "DELETE FROM photo_prints WHERE image_id = ?", arguments: [all[5].image])
        }
        #expect(try ranked() == Array(all.prefix(5)), "the prints are read from the database again")
    }

    @Test func printsAreAddedWithoutFindingFacesAgain() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let context = try IndexingTests.context()
        let catalog = try Catalog(path: folder + "/../cbir.sqlite")
        let faces = CountingAnalysis(try FaceAnalysis(context: context, embeddings: false))
        let first = try await catalog.index(folder: folder, analyses: [faces])
        let printedFirst = try catalog.statistics().printedImages
        #expect(first.indexed == 6 && faces.photos.value == 6 && printedFirst == 0)
        let second = try await catalog.index(
            folder: folder, analyses: [faces, try PhotoPrintAnalysis(context: context)])
        #expect(second.upgraded == 6 && second.indexed == 0, "\(second)")
        #expect(faces.photos.value == 6, "faces were looked for again")
        #expect(try catalog.statistics().printedImages == 6)
        let third = try await catalog.index(
            folder: folder, analyses: [faces, try PhotoPrintAnalysis(context: context)])
        #expect(third.unchanged == 6 && third.upgraded == 0)
    }
}

/// An analysis that counts the photos it analyses, around another.
struct CountingAnalysis<Inner: PhotoAnalysis>: PhotoAnalysis {
    let inner: Inner
    let photos = Counter()

    init(_ inner: Inner) {
        self.inner = inner
    }

    var name: String { inner.name }
    var version: String { inner.version }

    func analyze(_ photo: Photo) throws -> Inner.Analysis {
        photos.add(1)
        return try inner.analyze(photo)
    }

    func analyze(_ photos: [Photo]) -> [Result<Inner.Analysis, any Error>] {
        self.photos.add(photos.count)
        return inner.analyze(photos)
    }

    func write(_ analysis: Inner.Analysis, image: Int64, to connection: any StoreConnection) throws {
        try inner.write(analysis, image: image, to: connection)
    }

    func isIncomplete(image: Int64, _ connection: any StoreConnection) throws -> Bool {
        try inner.isIncomplete(image: image, connection)
    }

    /// A count shared by copies of the analysis.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add(_ n: Int) { lock.withLock { count += n } }
    }
}
