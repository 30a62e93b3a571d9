import BenchmarkSupport
import Catalog
import FaceRecognition
import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// A user-defined analysis, from outside the module, with a table of its own: each photo's mean colour.
struct MeanColourAnalysis: PhotoAnalysis {
    var name: String { "mean colour" }
    var version: String { "mean of each channel over every pixel" }

    var migrations: [(name: String, migrate: @Sendable (Database) throws -> Void)] {
        [
            (
                "table",
                { db in
                    try db.create(table: "mean_colours") { t in
                        t.column("image_id", .integer).notNull().references("images", onDelete: .cascade)
                        t.column("red", .double).notNull()
                        t.column("green", .double).notNull()
                        t.column("blue", .double).notNull()
                    }
                }
            )
        ]
    }

    func analyze(_ photo: Photo) throws -> [Double] {
        let d = photo.pixels.descriptor, pixels = d.planePixelCount
        return (0..<3).map { channel in
            let plane = min(channel, d.channels - 1) * pixels
            return Double(photo.pixels.bytes[plane..<plane + pixels].reduce(0) { $0 + Int($1) }) / Double(pixels)
        }
    }

    func write(_ analysis: [Double], image: Int64, to connection: any StoreConnection) throws {
        try connection.execute(
            "INSERT INTO mean_colours (image_id, red, green, blue) VALUES (?, ?, ?, ?)",
            [.integer(image)] + analysis.map(StoreValue.real))
    }
}

@Suite(.serialized, .needs(.wildPhotos)) struct IndexingTests {
    static let photos = SharedData.root + "/wild-photos"

    static func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "cbir-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func context() throws -> RenderContext {
        RenderContext(device: try TestDevices.device(TestDevices.hasOpenCL ? .opencl : .cpu))
    }

    /// Index train/, then ask with test/obama1.jpg: every matcher ranks an Obama photo first. A second run
    /// finds nothing to do; the user's analysis stored a row per photo beside the faces. The faces are the
    /// cascades' crops, which the LBP matchers' reference weight map was made for (on BlazeFace's, weighted
    /// χ² and RNBNN put rose_leslie/img2.jpg first, 89.6 against obama.jpg's 90.2).
    @Test func indexTrainAndFindObama() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try Self.context()
        let faces = try FaceAnalysis(context: context, detector: .haar)
        let database = try Catalog(path: folder + "/cbir.sqlite")
        let first = try await database.index(
            folder: Self.photos + "/train", analyses: [faces, MeanColourAnalysis()], context: context)
        #expect(first.total == 9 && first.indexed == 9 && first.failed == 0)
        let statistics = try database.statistics()
        #expect(statistics.images == 9 && statistics.faces >= 9)
        #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mean_colours") } == 9)

        let again = try await database.index(
            folder: Self.photos + "/train", analyses: [faces, MeanColourAnalysis()], context: context)
        #expect(again.unchanged == 9 && again.indexed == 0)

        for matcher in [Matcher.embedding, .weightedChiSquare, .restrictedNBNN, .nbnn] {
            let result = try await database.search(
                photo: Self.photos + "/test/obama1.jpg", faces: faces, matcher: matcher, top: 3)
            #expect(result.probe.count == 1 && result.probe.number == 1)
            #expect(result.images.first?.path.contains("/train/obama/") == true, "\(matcher): \(result.images)")
        }
    }

    /// Files indexed in batches (their faces described and embedded together, each batch stored in one
    /// transaction, two batches in flight) are stored as files indexed one at a time: the same faces with
    /// the same boxes, eyes, descriptors and thumbnails, and embeddings within rounding.
    @Test func batchesStoreWhatOneFileAtATimeStores() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try Self.context()
        var stored: [[String: [FaceRecord]]] = []
        let faces = try FaceAnalysis(context: context)
        for (batch, concurrency) in [(1, 1), (8, 2)] {
            let database = try Catalog(path: folder + "/batch-\(batch).sqlite")
            let run = try await database.index(
                folder: Self.photos, analyses: [faces], context: context, concurrency: concurrency, batch: batch)
            #expect(run.indexed == run.total && run.failed == 0, "\(run)")
            let paths = try database.read { db in try String.fetchAll(db, sql: "SELECT path FROM images") }
            stored.append(
                Dictionary(uniqueKeysWithValues: try paths.map { ($0, try database.faces(inImageAtPath: $0)) }))
        }
        let (alone, batched) = (stored[0], stored[1])
        #expect(alone.count >= 25 && Set(alone.keys) == Set(batched.keys))
        #expect(alone.values.reduce(0) { $0 + $1.count } >= 25, "the photos have faces")
        for (path, found) in alone {
            let others = batched[path] ?? []
            #expect(found.count == others.count, "\(path)")
            for (face, other) in zip(found, others) {
                let box: [Int] = [face.x, face.y, face.width, face.height],
                    otherBox: [Int] = [other.x, other.y, other.width, other.height]
                #expect(box == otherBox, "\(path)")
                #expect(
                    face.leftEyeX == other.leftEyeX && face.rightEyeY == other.rightEyeY && face.angle == other.angle,
                    "\(path)")
                #expect(face.descriptor == other.descriptor && face.thumbnail == other.thumbnail, "\(path)")
                let embedding = [Float](littleEndianBytes: face.embedding ?? Data())
                let otherEmbedding = [Float](littleEndianBytes: other.embedding ?? Data())
                #expect(
                    embedding.count == FaceEmbedder.length && otherEmbedding.count == FaceEmbedder.length, "\(path)")
                #expect(zip(embedding, otherEmbedding).allSatisfy { abs($0 - $1) <= 1e-5 }, "\(path)")
            }
        }
    }

    /// A database indexed before embeddings upgrades in place: the next run adds every face's embedding
    /// (from its stored box) without re-indexing, and the one after finds nothing to do.
    @Test func oldDatabasesGainEmbeddingsInPlace() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try Self.context(), path = folder + "/cbir.sqlite"
        let old = try Catalog(path: path)
        _ = try await old.index(
            folder: Self.photos + "/train", analyses: [try FaceAnalysis(context: context, embeddings: false)],
            context: context)
        let faces = try old.statistics().faces
        #expect(
            try old.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM faces WHERE id NOT IN (SELECT face_id FROM face_embeddings)")
            } == faces)

        let database = try Catalog(path: path), analysis = try FaceAnalysis(context: context)
        let upgrade = try await database.index(folder: Self.photos + "/train", analyses: [analysis], context: context)
        #expect(upgrade.upgraded == 9 && upgrade.indexed == 0 && upgrade.failed == 0, "\(upgrade)")
        #expect(
            try database.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM faces WHERE id NOT IN (SELECT face_id FROM face_embeddings)")
            } == 0)
        #expect(try database.statistics().faces == faces)
        let again = try await database.index(folder: Self.photos + "/train", analyses: [analysis], context: context)
        #expect(again.unchanged == 9 && again.upgraded == 0)
        let result = try await database.search(photo: Self.photos + "/test/obama1.jpg", faces: analysis, top: 3)
        #expect(result.images.prefix(2).allSatisfy { $0.path.contains("/train/obama/") }, "\(result.images)")
    }

    /// Queries run while `cbir index`, another process, writes (WAL snapshots; the kept gallery follows
    /// each commit), never see a half-stored photo, and see a removal at once.
    @Test func queriesRunWhileIndexing() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try Self.context()
        let faces = try FaceAnalysis(context: context)
        let database = try Catalog(path: folder + "/cbir.sqlite")
        let probeFace = try database.probe(photo: Self.photos + "/test/obama1.jpg", with: faces, context: context).face
        let probe = try probeFace.faceDescriptor(), embedding = try probeFace.faceEmbedding()
        let indexing = Process()
        indexing.executableURL = try CommandRunner(product: "cbir").executable
        indexing.arguments = [
            "index", Self.photos, "--db", folder + "/cbir.sqlite", "--device", TestDevices.hasOpenCL ? "opencl" : "cpu",
        ]
        indexing.standardOutput = FileHandle.nullDevice
        indexing.standardError = FileHandle.nullDevice
        try indexing.run()
        var seenMidway: [Int] = []
        while indexing.isRunning {
            let result = try #require(
                try await FaceQuery(probe: probe, embedding: embedding, count: 30).run(on: database, context: context) {
                    _ in
                })
            let stored = try database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT image_id) FROM faces") ?? 0
            }
            if indexing.isRunning { seenMidway.append(result.images.count) }
            #expect(result.images.count <= stored, "every image a query returns is stored whole")
            try await Task.sleep(for: .milliseconds(20))
        }
        indexing.waitUntilExit()
        #expect(indexing.terminationStatus == 0)
        let everything = try #require(
            try await FaceQuery(probe: probe, embedding: embedding, count: 30).run(on: database, context: context) {
                _ in
            })
        #expect(
            seenMidway.contains { $0 < everything.images.count }
                && seenMidway.allSatisfy { $0 <= everything.images.count }, "\(seenMidway)")
        #expect(seenMidway == seenMidway.sorted(), "the gallery only grows while indexing adds")

        #expect(everything.images.contains { $0.path.contains("/train/obama/") })
        #expect(try await database.remove(path: Self.photos + "/train/obama") == 2)
        let after = try #require(
            try await FaceQuery(probe: probe, embedding: embedding, count: 30).run(on: database, context: context) {
                _ in
            })
        #expect(
            after.images.count == everything.images.count - 2
                && !after.images.contains { $0.path.contains("/train/obama/") })
    }

    /// A file touched (new modification time, same bytes) is not re-indexed, only its time updated; a file
    /// whose bytes changed is indexed again in place of its old rows; a run over an unchanged gallery
    /// writes nothing at all.
    @Test func changedFilesAreReindexedTouchedOnesNot() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gallery = folder + "/gallery"
        try FileManager.default.createDirectory(atPath: gallery, withIntermediateDirectories: true)
        func copy(_ source: String, to name: String) throws {
            try Data(contentsOf: URL(fileURLWithPath: Self.photos + source)).write(
                to: URL(fileURLWithPath: gallery + "/" + name))
        }
        try copy("/train/obama/obama.jpg", to: "a.jpg")
        try copy("/train/biden/biden.jpg", to: "b.jpg")
        let context = try Self.context()
        let database = try Catalog(path: folder + "/cbir.sqlite"), faces = try FaceAnalysis(context: context)
        #expect(try await database.index(folder: gallery, analyses: [faces], context: context).indexed == 2)
        let before = try database.read { db in try ImageRecord.order(Column("path")).fetchAll(db) }
        let facesOfB = try database.faces(inImageAtPath: gallery + "/b.jpg")

        let later = Date(timeIntervalSince1970: (before[0].modified + 3600).rounded())
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: gallery + "/a.jpg")
        try copy("/train/obama/obama2.jpg", to: "b.jpg")
        let run = try await database.index(folder: gallery, analyses: [faces], context: context)
        #expect(run.unchanged == 1 && run.indexed == 1 && run.failed == 0)
        let after = try database.read { db in try ImageRecord.order(Column("path")).fetchAll(db) }
        #expect(after.count == 2)
        #expect(
            after[0].id == before[0].id && after[0].hash == before[0].hash
                && after[0].modified == later.timeIntervalSince1970)
        #expect(after[1].id != before[1].id && after[1].hash != before[1].hash && after[1].size != before[1].size)
        let newFacesOfB = try database.faces(inImageAtPath: gallery + "/b.jpg")
        #expect(!newFacesOfB.isEmpty && Set(newFacesOfB.map(\.id)).isDisjoint(with: facesOfB.map(\.id)))
        #expect(
            try database.statistics().faces == (try database.faces(inImageAtPath: gallery + "/a.jpg")).count
                + newFacesOfB.count)

        // Nothing of the photos' own: their rows, and the tags that any change to the faces' tables replaces.
        func photosRows() throws -> [Row] {
            try database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM images ORDER BY id")
                    + Row.fetchAll(db, sql: "SELECT * FROM table_tags ORDER BY name")
            }
        }
        let rows = try photosRows()
        #expect(try await database.index(folder: gallery, analyses: [faces], context: context).unchanged == 2)
        #expect(try photosRows() == rows, "an unchanged gallery writes nothing of its photos")
        #expect(try database.lastIndexingRun()?.unchanged == 2)
    }

    /// A repair carries a user's analysis's table over as the damaged database declares it; where the record of
    /// migrations is what is damaged, it leaves the table out and says so, and the next run with the analysis
    /// makes it again.
    @Test func repairCarriesAnAnalysisTables() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/cbir.sqlite", context = try Self.context()
        _ = try await Catalog(path: path).index(
            folder: Self.photos + "/train", analyses: [MeanColourAnalysis()], context: context)
        try FileManager.default.copyItem(atPath: path, toPath: folder + "/copy.sqlite")
        for (database, damaged) in [(path, "sqlite_autoindex_images_1"), (folder + "/copy.sqlite", "grdb_migrations")] {
            let page = try #require(
                try await DatabaseQueue(path: database).read { db in
                    try Int.fetchOne(db, sql: "SELECT pageno FROM dbstat WHERE name = ?", arguments: [damaged])
                })
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: database))
            try file.seek(toOffset: UInt64((page - 1) * 4096))
            try file.write(contentsOf: Data((0..<4096).map { _ in UInt8.random(in: 0...255) }))
            try file.close()
        }
        let repaired = try #require(try Catalog.repair(path: path))
        #expect(repaired.tablesLeftOut.isEmpty && repaired.tables.contains { $0.name == "mean_colours" })
        #expect(
            try Catalog(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mean_colours") } == 9)

        let leftOut = try #require(try Catalog.repair(path: folder + "/copy.sqlite"))
        #expect(leftOut.tablesLeftOut == ["mean_colours"] && leftOut.tables.allSatisfy { $0.name != "mean_colours" })
        let copy = try Catalog(path: folder + "/copy.sqlite")
        let again = try await copy.index(
            folder: Self.photos + "/train", analyses: [MeanColourAnalysis()], context: context)
        #expect(again.unchanged == 9 && again.failed == 0)
        #expect(try copy.read { db in try db.tableExists("mean_colours") })
    }

    /// A database inside the folder it indexes leaves its own files alone (reading one as a photo would
    /// drop SQLite's locks on it), however they are named, and refuses them as probes.
    @Test func theDatabasesOwnFilesAreNotPhotos() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: Self.photos + "/train/biden/biden.jpg", toPath: folder + "/biden.jpg")
        let path = folder + "/cbir.sqlite"
        try FileManager.default.createSymbolicLink(atPath: folder + "/link to the database", withDestinationPath: path)
        let context = try Self.context()
        let database = try Catalog(path: path), faces = try FaceAnalysis(context: context)
        let first = try await database.index(folder: folder, analyses: [faces], context: context)
        #expect(first.total == 1 && first.indexed == 1 && first.failed == 0)
        let second = try await database.index(folder: folder, analyses: [faces], context: context)
        #expect(second.total == 1 && second.unchanged == 1)
        let refused = #expect(throws: (any Error).self) {
            try database.probe(photo: folder + "/link to the database", with: faces, context: context)
        }
        #expect(refused.map { "\($0)" }?.contains("a file of the database itself") == true)
        #expect(try database.probe(photo: folder + "/biden.jpg", with: faces, context: context).count == 1)
    }

    /// Corrupt, truncated, empty, non-image and huge-header files, broken links and FIFOs are recorded with
    /// their errors while the photos beside them are indexed; links to folders are not followed.
    @Test func badFilesAreRecordedAndSkipped() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gallery = folder + "/gallery"
        try FileManager.default.createDirectory(atPath: gallery + "/sub", withIntermediateDirectories: true)
        let good = try Data(contentsOf: URL(fileURLWithPath: Self.photos + "/train/biden/biden.jpg"))
        try good.write(to: URL(fileURLWithPath: gallery + "/good.jpg"))
        try good.write(to: URL(fileURLWithPath: gallery + "/sub/also good (no extension)"))
        try good.prefix(good.count / 3).write(to: URL(fileURLWithPath: gallery + "/truncated.jpg"))
        var corrupt = good
        corrupt.replaceSubrange(200..<4000, with: Data(repeating: 0x5a, count: 3800))
        try corrupt.write(to: URL(fileURLWithPath: gallery + "/corrupt.jpg"))
        try Data().write(to: URL(fileURLWithPath: gallery + "/empty.png"))
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: gallery + "/notes.jpg"))
        let huge = PNGBuilder.png(width: 1 << 20, height: 1 << 20, bitDepth: 8, colorType: 0, rows: [])
        try Data(huge).write(to: URL(fileURLWithPath: gallery + "/huge.png"))
        try FileManager.default.createSymbolicLink(
            atPath: gallery + "/broken.jpg", withDestinationPath: folder + "/gone.jpg")
        try FileManager.default.createSymbolicLink(atPath: gallery + "/sub/up", withDestinationPath: gallery)
        #expect(mkfifo(gallery + "/pipe.jpg", 0o644) == 0)

        let context = try Self.context()
        let database = try Catalog(path: folder + "/cbir.sqlite"), faces = try FaceAnalysis(context: context)
        let run = try await database.index(folder: gallery, analyses: [faces], context: context)
        #expect(run.total == 9 && run.indexed >= 2)
        let records = try database.read { db in try ImageRecord.fetchAll(db) }
        let failed = Dictionary(
            uniqueKeysWithValues: records.filter { $0.status == .failed }.map {
                (($0.path as NSString).lastPathComponent, $0.error ?? "")
            })
        for name in ["empty.png", "notes.jpg", "huge.png", "truncated.jpg"] {
            #expect(failed[name]?.contains(name) == true, "\(name): \(failed[name] ?? "indexed")")
        }
        #expect(
            failed["broken.jpg"]?.hasPrefix("a link to nothing") == true
                && failed["pipe.jpg"] == "not a regular file but a FIFO", "\(failed)")
        #expect(records.filter { $0.status == .indexed }.count + failed.count == 9)
        #expect(try database.statistics().faces >= 2)
    }
}
