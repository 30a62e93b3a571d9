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

    /// A new process (here a new catalog on the same file) ranks by the augmented prints and neighbour lists
    /// in the files beside the database, which the first search wrote, while they hold the database's prints.
    /// Once photos are removed or added, both a process that kept its gallery and a new one bring them up to
    /// date, and rank as a process that makes them from scratch does.
    @Test func similarPrintsFollowTheCatalogAsIfMadeFromScratch() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: folder)) }
        let context = try IndexingTests.context(), path = folder + "/../cbir.sqlite"
        let files = [path + "-similar-prints", path + "-print-neighbours"]
        let analyses: [any PhotoAnalysis] = [try PhotoPrintAnalysis(context: context)]
        _ = try await Catalog(path: path).index(folder: folder, analyses: analyses)
        let query = try #require(try Catalog(path: path).storedPrint(ofPhotoAt: folder + "/ukbench00000.jpg"))
        let kept = try Catalog(path: path)
        func ranked(by catalog: Catalog? = nil) throws -> [SimilarPhoto] {
            try (catalog ?? Catalog(path: path)).similarPhotos(to: query, top: 10, context: context)
        }
        func fromScratch() throws -> [SimilarPhoto] {
            for file in files { try? FileManager.default.removeItem(atPath: file) }
            return try ranked()
        }
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        let all = try ranked(by: kept)
        #expect(all.count == 6 && files.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "written")
        #expect(all.first?.path.hasSuffix("ukbench00000.jpg") == true)
        #expect(all.prefix(4).allSatisfy { $0.path.contains("ukbench0000") }, "\(all.map(\.path))")
        #expect(try ranked() == all)

        // Trusted while their tag is the database's: a gallery of one print with that tag is all a new process ranks.
        let tag = try #require(
            try Catalog(path: path).read { db in
                try Data.fetchOne(db, sql: "SELECT tag FROM table_tags WHERE name = 'photo_prints'")
            })
        let single = EmbeddingGallery(length: PhotoPrinter.length, context: context)
        try single.append([(query, FaceID(all[0].image), ImageID(all[0].image))])
        try single.write(to: files[0], tag: tag)
        #expect(try ranked().count == 1)

        // A view of the object gone: the others' lists lose it.
        try await Catalog(path: path).write { db in
            try db.execute(sql: "DELETE FROM photo_prints WHERE image_id = ?", arguments: [all[1].image])
        }
        let fewer = try ranked(by: kept)
        #expect(fewer.count == 5 && !fewer.contains { $0.image == all[1].image })
        #expect(try ranked() == fewer, "a new process, from the lists in the file")
        #expect(try fromScratch() == fewer)
        // Printed again by the next run: the lists take it back in.
        let run = try await Catalog(path: path).index(folder: folder, analyses: analyses)
        #expect(run.upgraded == 1, "\(run)")
        let again = try ranked(by: kept)
        #expect(again.count == 6)
        #expect(try fromScratch() == again)
        #expect(again.map(\.image).sorted() == all.map(\.image).sorted())
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
