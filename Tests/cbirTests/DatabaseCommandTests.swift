import Foundation
import GRDB
import ImageCodecs
import TestSupport
import Testing

/// The database commands end to end on the wild photos, as a user runs them.
@Suite(.serialized, .needs(.wildPhotos)) struct DatabaseCommandTests {
    static let photos = SharedData.root + "/wild-photos"
    static let device = TestDevices.hasOpenCL ? "opencl" : "cpu"

    static func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "cbir-db-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `cbir` on a new database (on `store`) and a new temporary folder.
    struct NewDatabase {
        let folder: String
        let cbir: CommandRunner
        let db: [String]

        init(on store: TestStore = .sqlite) throws {
            folder = try DatabaseCommandTests.temporaryFolder()
            cbir = try CommandRunner(product: "cbir")
            db = ["--db", try store.catalog(in: folder, name: "commands")]
        }

        /// Runs `cbir` with `arguments` on the database, expecting success.
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRunner.Output {
            let output = try cbir.run(arguments + db, environment: environment)
            #expect(output.status == 0, "\(arguments): \(output.standardError)")
            return output
        }

        /// Runs `cbir` with `arguments` and `--json`, expecting success, and decodes what it prints.
        func json<T: Decodable>(_ type: T.Type, _ arguments: [String], environment: [String: String] = [:]) throws
            -> T
        {
            try JSONDecoder().decode(
                type, from: Data(try run(arguments + ["--json"], environment: environment).standardOutput.utf8))
        }

        /// Labels every face of train/ with its folder's name (one face a photo).
        func labelTrainFaces() throws {
            for person in try FileManager.default.contentsOfDirectory(atPath: photos + "/train") {
                for photo in try FileManager.default.contentsOfDirectory(atPath: photos + "/train/" + person) {
                    #expect(
                        try run(["label", photos + "/train/\(person)/\(photo)", person]).standardOutput
                            .hasSuffix(": \(person)\n"))
                }
            }
        }

        private var photos: String { DatabaseCommandTests.photos }
    }

    struct Hit: Decodable {
        let path: String
        let distance: Float
    }
    struct QueryReport: Decodable {
        struct Probe: Decodable { let face, faces: Int }
        let probe: Probe
        let images: [Hit]
        let faces: [Hit]
    }
    struct Identified: Decodable {
        let name: String?
        let distance: Float?
    }
    struct Statistics: Decodable, Equatable {
        let images, failedImages, faces, labelledFaces, labels: Int
    }

    /// Index train/; obama1.jpg finds an Obama photo first; obama_and_biden.jpg's two faces find Biden and
    /// Obama in turn and the sheet shows them; labels name the train faces, identify names the test faces
    /// and calls a stranger unknown; remove forgets a folder.
    @Test(arguments: TestStore.allCases) func indexQueryLabelIdentifyRemove(store: TestStore) throws {
        let database = try NewDatabase(on: store)
        defer { try? FileManager.default.removeItem(atPath: database.folder) }
        let (cbir, db) = (database.cbir, database.db)

        let missing = try cbir.run(["stats"] + db)
        let absent = store == .sqlite ? "no such database" : "no catalog in this database yet"
        #expect(missing.status != 0 && missing.standardError.contains(absent), "\(missing.standardError)")
        let indexed = try database.run(["index", Self.photos + "/train", "--device", Self.device])
        #expect(indexed.standardOutput.contains("9 files") && indexed.standardOutput.contains("9 indexed"))
        #expect(
            try database.json(Statistics.self, ["stats"])
                == Statistics(images: 9, failedImages: 0, faces: 9, labelledFaces: 0, labels: 0))

        let obama = try database.json(
            QueryReport.self, ["query", Self.photos + "/test/obama1.jpg", "--device", Self.device])
        #expect(obama.images.first?.path.contains("/train/obama/") == true, "\(obama.images)")
        let sheet = database.folder + "/sheet.png"
        for (face, person) in [(1, "biden"), (2, "obama")] {
            let report = try database.json(
                QueryReport.self,
                [
                    "query", Self.photos + "/test/obama_and_biden.jpg", "--face", "\(face)", "--top", "3",
                    "--sheet", sheet,
                ])
            #expect(report.probe.face == face && report.probe.faces == 3, "Biden, Obama and the girl bottom right")
            #expect(report.images.first?.path.contains("/train/\(person)/") == true, "face \(face): \(report.images)")
            #expect(report.images.count == 3 && report.faces.count == 3)
            // The probe and three matches, 128-pixel faces 8 pixels apart, with two caption lines.
            let picture = try ImageDecoder.decode(contentsOf: sheet)
            #expect(
                picture.descriptor.width == 4 * (128 + 8) + 8 && picture.descriptor.height == 128 + 4 + 2 * 9 + 2 * 8)
        }
        let text = try database.run([
            "query", Self.photos + "/test/obama_and_biden.jpg", "--face", "2", "--top", "2", "--matcher", "rnbnn",
        ])
        #expect(text.standardOutput.hasPrefix("probe: ") && text.standardOutput.contains("face 2 of 3"))
        if TestDevices.hasOpenCL {
            // The embedding search fails to build on OpenCL: one line on stderr, and the CPU device's answer.
            let failing = try cbir.run(
                ["query", Self.photos + "/test/obama1.jpg", "--json", "--device", "opencl"] + db,
                environment: ["IMAGEKERNELS_FAIL_BUILDS": "EmbeddingDistance"])
            let fallback = try JSONDecoder().decode(QueryReport.self, from: Data(failing.standardOutput.utf8))
            let cpu = try database.json(
                QueryReport.self, ["query", Self.photos + "/test/obama1.jpg", "--device", "cpu"])
            #expect(
                fallback.images.map(\.path) == cpu.images.map(\.path)
                    && fallback.faces.map(\.path) == cpu.faces.map(\.path))
            #expect(
                failing.standardError.split(separator: "\n").count == 1
                    && failing.standardError.hasPrefix("imagekernels: falling back to the CPU device"),
                "\(failing.standardError)")
        }
        let noSuchFace = try cbir.run(["query", Self.photos + "/test/obama1.jpg", "--face", "3"] + db)
        #expect(noSuchFace.status != 0 && noSuchFace.standardError.contains("the photo has 1 face"))

        let unlabelled = try database.json(Identified.self, ["identify", Self.photos + "/test/obama1.jpg"])
        #expect(unlabelled.name == nil && unlabelled.distance == nil)
        try database.labelTrainFaces()
        #expect(
            try database.json(Statistics.self, ["stats"])
                == Statistics(images: 9, failedImages: 0, faces: 9, labelledFaces: 9, labels: 5))
        for (probe, face, person) in [
            ("obama_and_biden.jpg", 1, "biden"), ("obama_and_biden.jpg", 2, "obama"), ("obama1.jpg", 1, "obama"),
            ("johnsnow_test1.jpg", 1, "kit_harington"),
        ] {
            let answer = try database.json(
                Identified.self, ["identify", Self.photos + "/test/" + probe, "--face", "\(face)"])
            #expect(answer.name == person, "\(probe) face \(face): \(answer)")
        }
        let stranger = try database.run(["identify", Self.photos + "/misc/lin-manuel-miranda.png"])
        #expect(stranger.standardOutput.hasPrefix("unknown"))
        let cleared = try database.run(["label", "6", "--clear"])
        #expect(cleared.standardOutput == "face 6: no label\n")
        #expect(try cbir.run(["label", "999", "nobody"] + db).standardError.contains("not found: face 999"))

        #expect(try database.run(["remove", Self.photos + "/train/obama"]).standardOutput == "removed 2 files\n")
        let afterRemoval = try database.json(QueryReport.self, ["query", Self.photos + "/test/obama1.jpg"])
        #expect(afterRemoval.images.count == 7 && !afterRemoval.images.contains { $0.path.contains("/train/obama/") })
        #expect(try cbir.run(["remove", Self.photos + "/train/obama"] + db).status != 0)
        // Checked whole, on either store; nothing to repair.
        #expect(try database.run(["check"]).standardOutput.hasSuffix(": 7 images, 7 faces: sound\n"))
        #expect(try database.run(["check", "--repair"]).standardOutput.hasSuffix(": sound, nothing to repair\n"))
    }

    /// On PostgreSQL, query and identify that take their candidates from the HNSW index (every search does with
    /// the exact-search limit at 0) and re-rank them answer as the exact search over every embedding does: the
    /// same faces and photos at the same distances, the same names.
    @Test func theIndexAnswersAsTheExactSearch() throws {
        let database = try NewDatabase(on: .postgres)
        defer { try? FileManager.default.removeItem(atPath: database.folder) }
        _ = try database.run(["index", Self.photos + "/train", "--device", Self.device])
        try database.labelTrainFaces()
        let name = String(database.db[1].split(separator: "/").last ?? "")
        // The planner would rightly scan so small a table: the index is what is tried here.
        try TestPostgres.run("ALTER DATABASE \(name) SET enable_seqscan = off", in: name)
        let scans = try TestPostgres.indexScans("face_embeddings_nearest", in: name)
        let indexed = ["FACESEARCH_EXACT_SEARCH": "0"]
        for (probe, face) in [("obama1.jpg", 1), ("obama_and_biden.jpg", 1), ("obama_and_biden.jpg", 2)] {
            let arguments = ["query", Self.photos + "/test/" + probe, "--face", "\(face)", "--top", "5"]
            let exact = try database.json(QueryReport.self, arguments)
            let candidates = try database.json(QueryReport.self, arguments, environment: indexed)
            #expect(exact.images.count == 5 && exact.faces.count == 5)
            for (one, other) in [(exact.images, candidates.images), (exact.faces, candidates.faces)] {
                #expect(one.map(\.path) == other.map(\.path), "\(probe) face \(face)")
                #expect(zip(one, other).allSatisfy { abs($0.distance - $1.distance) < 1e-5 })
            }
            let identify = ["identify", Self.photos + "/test/" + probe, "--face", "\(face)"]
            let named = try database.json(Identified.self, identify)
            let namedByIndex = try database.json(Identified.self, identify, environment: indexed)
            #expect(named.name != nil && named.name == namedByIndex.name)
            #expect(named.distance.map { abs($0 - (namedByIndex.distance ?? .infinity)) < 1e-5 } == true)
        }
        #expect(try TestPostgres.indexScans("face_embeddings_nearest", in: name, after: scans) >= scans + 6)
    }

    /// Indexing and probing with BlazeFace (`--detector blazeface`): train/'s faces, labelled, name the test
    /// faces, probed with BlazeFace or with the cascades (its boxes are stored as the cascades draw them).
    @Test func indexAndIdentifyWithBlazeFace() throws {
        let database = try NewDatabase()
        defer { try? FileManager.default.removeItem(atPath: database.folder) }
        let indexed = try database.run(["index", Self.photos + "/train", "--detector", "blazeface"])
        #expect(
            indexed.standardOutput.contains("9 indexed") && indexed.standardOutput.contains("9 faces"),
            "\(indexed.standardOutput)")
        for person in try FileManager.default.contentsOfDirectory(atPath: Self.photos + "/train") {
            for photo in try FileManager.default.contentsOfDirectory(atPath: Self.photos + "/train/" + person) {
                _ = try database.run(["label", Self.photos + "/train/\(person)/\(photo)", person])
            }
        }
        for detector in ["blazeface", "haar"] {
            for (probe, face, person) in [
                ("obama_and_biden.jpg", 1, "biden"), ("obama_and_biden.jpg", 2, "obama"), ("obama1.jpg", 1, "obama"),
                ("johnsnow_test1.jpg", 1, "kit_harington"),
            ] {
                let answer = try database.json(
                    Identified.self,
                    ["identify", Self.photos + "/test/" + probe, "--face", "\(face)", "--detector", detector])
                #expect(answer.name == person, "\(detector): \(probe) face \(face): \(answer)")
            }
        }
    }

    /// train/, test/ and misc/ (25 photos) copied into `folder`'s gallery/, for indexing runs to interrupt.
    static func gallery(in folder: String) throws -> String {
        let gallery = folder + "/gallery"
        try FileManager.default.createDirectory(atPath: gallery, withIntermediateDirectories: true)
        for part in ["train", "test", "misc"] {
            try FileManager.default.copyItem(atPath: photos + "/" + part, toPath: gallery + "/" + part)
        }
        return gallery
    }

    /// `cbir arguments` (an index run of the 25-photo gallery) started, and left running once its progress lines
    /// ("done/total files …") say five files are stored: the process, its standard error and what it said so far.
    static func indexingWithFiveStored(_ cbir: CommandRunner, _ arguments: [String]) throws
        -> (process: Process, progress: Pipe, seen: String)
    {
        let process = Process()
        process.executableURL = cbir.executable
        process.arguments = arguments
        let progress = Pipe()
        process.standardError = progress
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = ""
        while process.isRunning, !seen.contains("5/25 files") {
            seen += String(decoding: progress.fileHandleForReading.availableData, as: UTF8.self)
        }
        return (process, progress, seen)
    }

    /// On PostgreSQL, indexing whose connection the server drops in the middle of a batch's transaction
    /// (`pg_terminate_backend`) says the connection was lost, connects again and goes on: it ends with the photos
    /// and faces of a run never interrupted, every batch stored once.
    @Test func aLostConnectionIsMadeAgainAndIndexingGoesOn() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = try TestStore.postgres.catalog(in: folder, name: "lost")
        let name = String(url.split(separator: "/").last ?? "")
        let gallery = try Self.gallery(in: folder)
        let cbir = try CommandRunner(product: "cbir")
        let whole = folder + "/whole.sqlite"
        #expect(try cbir.run(["index", gallery, "--db", whole, "--device", Self.device]).status == 0)

        let (process, progress, started) = try Self.indexingWithFiveStored(
            cbir, ["index", gallery, "--db", url, "--device", Self.device, "--batch", "1"])
        var seen = started
        // The next batch's write waits for the photos' table, then its connection is dropped mid-transaction.
        try TestPostgres.run(
            """
            BEGIN; LOCK TABLE images; SELECT pg_sleep(2); \
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
            WHERE datname = '\(name)' AND pid <> pg_backend_pid(); COMMIT
            """, in: name)
        seen += String(decoding: progress.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(seen.suffix(500))")
        #expect(
            seen.contains("waiting for the database: ") && seen.contains("the connection to the server was lost"),
            "\(seen.suffix(500))")
        let status = try cbir.run(["index", "--status", "--db", url]).standardOutput
        #expect(status.contains("batches: 25 done (25 files), 0 claimed, 0 left, 0 failed"), "\(status)")
        let stats = ["stats", "--json"]
        let expected = try JSONDecoder().decode(
            Statistics.self, from: Data(try cbir.run(stats + ["--db", whole]).standardOutput.utf8))
        let resumed = try JSONDecoder().decode(
            Statistics.self, from: Data(try cbir.run(stats + ["--db", url]).standardOutput.utf8))
        #expect(resumed == expected)
    }

    /// Indexing killed with SIGKILL midway, then run again, ends with exactly the stored values of a run
    /// never interrupted.
    @Test func killedIndexingResumesToTheSameRows() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let gallery = try Self.gallery(in: folder)
        let cbir = try CommandRunner(product: "cbir")
        let whole = folder + "/whole.sqlite", resumed = folder + "/resumed.sqlite"
        #expect(try cbir.run(["index", gallery, "--db", whole, "--device", Self.device]).status == 0)

        let (process, _, _) = try Self.indexingWithFiveStored(
            cbir, ["index", gallery, "--db", resumed, "--device", Self.device])
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the run finished before it was killed")
        let partial = try DatabaseQueue(path: resumed).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM images") ?? 0
        }
        #expect(partial >= 5 && partial < 25)

        let again = try cbir.run(["index", gallery, "--db", resumed, "--device", Self.device])
        #expect(again.status == 0 && again.standardOutput.contains("\(partial) unchanged"), "\(again.standardOutput)")
        // Every stored value but row ids, which follow the order files finish in (several are in flight).
        func rows(_ path: String) throws -> [[String]] {
            try DatabaseQueue(path: path).read { db in
                try [
                    "SELECT path, size, modified, hash, width, height, status, error FROM images ORDER BY path",
                    """
                    SELECT path, x, y, faces.width, faces.height, angle, left_eye_x, left_eye_y, right_eye_x, \
                    right_eye_y, neighbours,
                           thumbnail, d.parameters, d.descriptor, e.embedding
                    FROM faces JOIN images ON images.id = image_id JOIN face_descriptors d ON d.face_id = faces.id
                    LEFT JOIN face_embeddings e ON e.face_id = faces.id ORDER BY path, x, y
                    """,
                ].flatMap { sql in
                    try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description) }
                }
            }
        }
        let expected = try rows(whole), found = try rows(resumed)
        #expect(expected.count > 25 && found == expected)
    }
}
