import BenchmarkSupport
import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import NeuralNetworks
import TestSupport
import Testing

/// The database commands where a hostile user would break them: odd file names, unreadable folders,
/// two indexers at once, read-only and damaged databases, deleted photos, bad option values.
/// Permission cases run as `nobody` when the tests run as root (root reads anything).
@Suite(.serialized, .needs(.wildPhotos)) struct ReliabilityTests {
    static let photos = SharedData.root + "/wild-photos"
    let cbir: CommandRunner
    /// A folder of its own per test, open to `nobody`.
    let folder: String

    init() throws {
        cbir = try CommandRunner(product: "cbir")
        folder = NSTemporaryDirectory() + "cbir-reliability-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
    }

    func cleanUp() {
        _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwx", folder]).waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `cbir` with these arguments, as `nobody` when the tests run as root: the tool and the models
    /// copied where `nobody` can read them (SwiftPM makes its build folder private to its owner).
    func runUnprivileged(_ arguments: [String]) throws -> CommandRunner.Output {
        guard getuid() == 0 else { return try cbir.run(arguments) }
        let models = folder + "/models", tool = folder + "/cbir"
        if !FileManager.default.fileExists(atPath: tool) {
            try FileManager.default.copyItem(atPath: ModelCache.folder, toPath: models)
            try FileManager.default.copyItem(atPath: cbir.executable.path, toPath: tool)
            try chmod(["-R", "a+rwX", models, tool])
        }
        let runner = CommandRunner(executable: URL(fileURLWithPath: "/usr/sbin/runuser"))
        return try runner.run(
            ["-u", "nobody", "--", "env", "FACESEARCH_MODELS=" + models, "IMAGEKERNELS_DEVICE=cpu", tool] + arguments)
    }

    func chmod(_ arguments: [String]) throws {
        let process = try Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: arguments)
        process.waitUntilExit()
    }

    func copy(_ photo: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: FileSystemPath.folder(of: path), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        try FileManager.default.copyItem(atPath: Self.photos + "/" + photo, toPath: path)
    }

    struct Statistics: Decodable, Equatable {
        let images, failedImages, faces, labelledFaces, labels: Int
    }

    func statistics(_ db: String) throws -> Statistics {
        let output = try cbir.run(["stats", "--json", "--db", db])
        #expect(output.status == 0, "\(output.standardError)")
        return try JSONDecoder().decode(Statistics.self, from: Data(output.standardOutput.utf8))
    }

    /// A photo whose name is Latin-1 bytes (not UTF-8) is indexed, found by its own path and printed
    /// with the odd byte escaped.
    @Test func fileNameThatIsNotUTF8() throws {
        defer { cleanUp() }
        let name = FileSystemPath.string(Array("/gallery/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.photos + "/train/obama/obama.jpg"))
        try FileManager.default.createDirectory(atPath: folder + "/gallery", withIntermediateDirectories: true)
        let written = FileSystemPath.withCString(folder + name) { open($0, O_CREAT | O_WRONLY, 0o644) }
        #expect(written >= 0)
        _ = bytes.withUnsafeBytes { write(written, $0.baseAddress, $0.count) }
        close(written)
        let db = folder + "/cbir.sqlite"
        let indexed = try cbir.run(["index", folder + "/gallery", "--db", db])
        #expect(
            indexed.status == 0 && indexed.standardOutput.contains("1 indexed"),
            "\(indexed.standardOutput) \(indexed.standardError)")
        // The path as raw bytes on the command line, through the shell.
        let shell = CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"))
        let query = try shell.run([
            "-c", "\"$0\" query \"$1/gallery/caf$(printf '\\351').jpg\" --db \"$1/cbir.sqlite\" --top 1",
            cbir.executable.path, folder,
        ])
        #expect(query.status == 0, "\(query.standardError)")
        #expect(query.standardOutput.contains("caf\\xE9.jpg"), "\(query.standardOutput)")
        #expect(query.standardOutput.contains("0.0000"), "the photo finds itself: \(query.standardOutput)")
    }

    /// A line break in a file name is printed as `\x0A`, so that each result stays one line.
    @Test func fileNameWithALineBreak() throws {
        defer { cleanUp() }
        let photo = folder + "/gallery/two\nlines.jpg", db = folder + "/cbir.sqlite"
        try copy("train/obama/obama.jpg", to: photo)
        #expect(try cbir.run(["index", folder + "/gallery", "--db", db, "--device", "cpu"]).status == 0)
        let query = try cbir.run(["query", photo, "--db", db, "--top", "1"])
        #expect(
            query.status == 0
                && query.standardOutput.split(separator: "\n").filter { $0.contains("two\\x0Alines.jpg") }.count == 3,
            "\(query.standardOutput)")
    }

    /// A folder that cannot be listed is reported, counted and recorded; once readable, its photo is
    /// indexed and the record goes.
    @Test func unreadableFolder() throws {
        defer { cleanUp() }
        try copy("train/obama/obama.jpg", to: folder + "/gallery/open/obama.jpg")
        try copy("train/obama/obama2.jpg", to: folder + "/gallery/locked/obama2.jpg")
        try chmod(["000", folder + "/gallery/locked"])
        let db = folder + "/cbir.sqlite"
        let first = try runUnprivileged(["index", folder + "/gallery", "--db", db])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardOutput.contains("2 files") && first.standardOutput.contains("1 indexed")
                && first.standardOutput.contains("1 failed"),
            "\(first.standardOutput)")
        #expect(
            first.standardError.contains("/gallery/locked: cannot list the folder: Permission denied"),
            "\(first.standardError)")
        #expect(try statistics(db) == Statistics(images: 1, failedImages: 1, faces: 1, labelledFaces: 0, labels: 0))
        try chmod(["755", folder + "/gallery/locked"])
        let second = try runUnprivileged(["index", folder + "/gallery", "--db", db])
        #expect(second.standardOutput.contains("1 indexed, 1 unchanged, 0 failed"), "\(second.standardOutput)")
        #expect(try statistics(db) == Statistics(images: 2, failedImages: 0, faces: 2, labelledFaces: 0, labels: 0))
    }

    /// Two indexers on one database both finish, and the database is what one run makes, sound.
    @Test func twoIndexersAtOnce() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite", alone = folder + "/alone.sqlite"
        let arguments = ["index", Self.photos + "/train", "--device", "cpu"]
        let runs = [db, db].map { path in
            let process = Process()
            process.executableURL = cbir.executable
            process.arguments = arguments + ["--db", path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for run in runs { try run.run() }
        for run in runs {
            run.waitUntilExit()
            #expect(run.terminationStatus == 0)
        }
        #expect(try cbir.run(arguments + ["--db", alone]).status == 0)
        #expect(try statistics(db) == statistics(alone))
        let check = try cbir.run(["check", "--db", db])
        #expect(check.status == 0 && check.standardOutput.contains("sound"), "\(check.standardOutput)")
    }

    /// A database in a read-only file and folder is read and searched; writing commands say it is read-only.
    @Test func readOnlyDatabase() throws {
        defer { cleanUp() }
        let store = folder + "/store", db = store + "/cbir.sqlite"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        #expect(try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"]).status == 0)
        try chmod(["444", db])
        try chmod(["555", store])
        let stats = try runUnprivileged(["stats", "--db", db])
        #expect(stats.status == 0 && stats.standardOutput.contains("9 images"), "\(stats.standardError)")
        let query = try runUnprivileged(["query", Self.photos + "/test/obama1.jpg", "--db", db, "--top", "1"])
        #expect(query.status == 0 && query.standardOutput.contains("/train/obama/"), "\(query.standardError)")
        for command in [
            ["label", "1", "someone"], ["index", Self.photos + "/train"], ["remove", Self.photos + "/train"],
        ] {
            let refused = try runUnprivileged(command + ["--db", db])
            #expect(
                refused.status != 0 && refused.standardError.contains("the database is read-only: \(db)"),
                "\(command): \(refused.standardError)")
        }
    }

    /// Random bytes over a random page (but the schema's): the writer refuses the file in a short
    /// message that says how to recover, `check` lists the damage, and `check --repair` gives a database that,
    /// indexed again, is sound and names no one who was not named (photos indexed again may see their faces join
    /// named people, as new ones do).
    @Test func damagedDatabase() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite"
        let labels = try indexAndLabel(db)
        let page = try #require(try schemaPages(db).pages.randomElement())
        try damage(pages: [page], of: db)

        let index = try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"])
        #expect(
            index.status != 0 && index.standardError.contains("the database is damaged")
                && index.standardError.contains("cbir check --repair"),
            "page \(page): \(index.standardError)")
        #expect(!index.standardError.contains("SELECT") && index.standardError.count < 600, "\(index.standardError)")
        let check = try cbir.run(["check", "--db", db])
        #expect(
            check.status != 0 && check.standardOutput.contains("problem"),
            "page \(page): \(check.standardOutput) \(check.standardError)")

        let repair = try cbir.run(["check", "--repair", "--db", db])
        #expect(
            repair.status == 0 && repair.standardOutput.contains("repaired; the damaged file is kept as"),
            "page \(page): \(repair)")
        #expect(try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"]).status == 0)
        let repaired = try cbir.run(["check", "--db", db])
        #expect(
            repaired.status == 0 && repaired.standardOutput.contains("9 images")
                && repaired.standardOutput.contains("sound"), "\(repaired)")
        func names(_ labels: [String]) -> Set<Substring> {
            Set(labels.compactMap { $0.split(separator: " ", maxSplits: 1).last })
        }
        let after = try exportedLabels(db)
        #expect(names(after).isSubset(of: names(labels)), "page \(page): \(after) after, \(labels) before")
    }

    /// A page of the schema damaged: nothing can be found without it, so the repair says so, points to indexing
    /// afresh, and leaves the file as it was.
    @Test func damagedSchemaIsNotRepaired() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite"
        _ = try indexAndLabel(db)
        let page = try #require(try schemaPages(db).schema.last)
        try damage(pages: [page], of: db)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: db))
        let repair = try cbir.run(["check", "--repair", "--db", db])
        #expect(
            repair.status != 0 && repair.standardError.contains("the database cannot be repaired")
                && repair.standardError.contains("cbir index <folder> --db <new file>"), "page \(page): \(repair)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == damaged)
    }

    /// The record of migrations damaged: `check`, which the catalog cannot open it for, checks the file as
    /// it is and lists the damage; the repair keeps every row and name (the catalog knows its own tables),
    /// and the repaired database is sound and indexes as before.
    @Test func damagedRecordOfMigrations() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite"
        let labels = try indexAndLabel(db)
        let page = try #require(
            try DatabaseQueue(path: db).read { db in
                try Int.fetchOne(db, sql: "SELECT pageno FROM dbstat WHERE name = 'grdb_migrations'")
            })
        try damage(pages: [page], of: db)
        let check = try cbir.run(["check", "--db", db])
        #expect(
            check.status != 0 && check.standardOutput.contains("the catalog cannot open it")
                && check.standardOutput.contains("9 images"), "\(check)")
        let repair = try cbir.run(["check", "--repair", "--db", db])
        #expect(
            repair.status == 0 && repair.standardOutput.contains("photo_prints: 9 rows saved")
                && repair.standardOutput.contains("\(labels.count) named faces kept"), "\(repair)")
        let again = try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"])
        #expect(again.standardOutput.contains("9 unchanged"), "\(again)")
        #expect(try cbir.run(["check", "--db", db]).standardOutput.contains("sound"))
        #expect(try exportedLabels(db).sorted() == labels.sorted())
    }

    /// The pages the labels' export reads through (the indexes on people and on faces' people) and a page of
    /// descriptors, damaged: the repair keeps every label, lists the photo whose descriptor was lost, and once
    /// it is indexed again the database holds what it held before the damage.
    @Test func repairKeepsWhatCanBeRead() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite"
        let labels = try indexAndLabel(db)
        let before = try faces(db)
        let pages = try DatabaseQueue(path: db).read { db in
            (
                try Int.fetchAll(
                    db,
                    sql: """
                        SELECT pageno FROM dbstat WHERE name IN ('sqlite_autoindex_persons_1', 'faces_on_person_id')
                        """),
                try Int.fetchOne(
                    db,
                    sql:
                        """
                        SELECT pageno FROM dbstat WHERE name = 'face_descriptors' AND pagetype = 'leaf' ORDER BY \
                        pageno
                        """
                ),
                try String.fetchOne(db, sql: "SELECT group_concat(path) FROM images")
            )
        }
        let descriptors = try #require(pages.1)
        try damage(pages: pages.0 + [descriptors], of: db)
        #expect(try cbir.run(["check", "--db", db]).status != 0)

        let repair = try cbir.run(["check", "--repair", "--db", db])
        #expect(
            repair.status == 0 && repair.standardOutput.contains("\(labels.count) named faces kept")
                && repair.standardOutput.contains("1 photo may have lost faces"), "\(repair)")
        #expect(try exportedLabels(db).sorted() == labels.sorted())
        let reindexed = try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"])
        #expect(reindexed.standardOutput.contains("1 indexed, 8 unchanged"), "\(reindexed.standardOutput)")
        #expect(try cbir.run(["check", "--db", db]).standardOutput.contains("sound"))
        #expect(try exportedLabels(db).sorted() == labels.sorted() && faces(db) == before)
    }

    /// A damaged database another process has open (this test's) is left in place: the repaired copy is
    /// written beside it, and the command says how to put it in place.
    @Test func repairLeavesADatabaseInUseInPlace() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite"
        _ = try indexAndLabel(db)
        let index = try #require(
            try DatabaseQueue(path: db).read { db in
                try Int.fetchOne(db, sql: "SELECT pageno FROM dbstat WHERE name = 'faces_on_person_id'")
            })
        try damage(pages: [index], of: db)
        let reader = try DatabaseQueue(path: db)
        _ = try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM images") }
        let repair = try cbir.run(["check", "--repair", "--db", db])
        #expect(repair.status == 0 && repair.standardOutput.contains("Another process has \(db) open"), "\(repair)")
        #expect(try cbir.run(["check", "--db", db + ".repaired"]).standardOutput.contains("sound"))
        #expect(try cbir.run(["check", "--db", db]).status != 0, "the damaged file is still in place")
        try reader.close()
    }

    /// Indexes train/ into `db` and names two faces; returns the labels as "path name".
    func indexAndLabel(_ db: String) throws -> [String] {
        #expect(try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"]).status == 0)
        for (photo, name) in [("obama/obama.jpg", "Barack Obama"), ("biden/biden2.jpg", "Joe Biden")] {
            #expect(try cbir.run(["label", Self.photos + "/train/" + photo, name, "--db", db]).status == 0)
        }
        return try exportedLabels(db)
    }

    func exportedLabels(_ db: String) throws -> [String] {
        let file = folder + "/labels.json"
        let export = try cbir.run(["labels", "--export", file, "--db", db])
        #expect(export.status == 0, "\(export.standardError)")
        return try JSONDecoder().decode([FaceLabelRow].self, from: Data(contentsOf: URL(fileURLWithPath: file))).map {
            "\($0.path) \($0.label)"
        }
    }

    /// Every face as its photo and box, sorted.
    func faces(_ db: String) throws -> [String] {
        try DatabaseQueue(path: db).read { db in
            try String.fetchAll(
                db,
                sql:
                    """
                    SELECT path || ' ' || x || ',' || y || ',' || faces.width FROM faces JOIN images ON images.id \
                    = image_id
                    """
            )
        }.sorted()
    }

    /// Random bytes over whole pages (numbered from 1) of a database file.
    /// The pages of the schema, and every other page of the file.
    func schemaPages(_ db: String) throws -> (schema: [Int], pages: [Int]) {
        let pages = try DatabaseQueue(path: db).read { db in
            try Row.fetchAll(db, sql: "SELECT pageno, name FROM dbstat ORDER BY pageno")
        }
        let schema = pages.filter { $0["name"] == "sqlite_schema" }.map { $0["pageno"] as Int }
        return (schema, pages.map { $0["pageno"] as Int }.filter { !schema.contains($0) })
    }

    func damage(pages: [Int], of db: String) throws {
        var generator = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: db))
        for page in pages {
            try handle.seek(toOffset: UInt64((page - 1) * 4096))
            try handle.write(contentsOf: Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        try handle.close()
    }

    struct FaceLabelRow: Decodable { let path: String, label: String }

    /// Photos deleted from an indexed folder leave the database on the next index, their labels saved
    /// first; with --keep-missing they stay.
    @Test func deletedPhotos() throws {
        defer { cleanUp() }
        let gallery = folder + "/gallery", db = folder + "/cbir.sqlite"
        for name in ["obama.jpg", "obama2.jpg"] { try copy("train/obama/" + name, to: gallery + "/" + name) }
        try copy("train/biden/biden.jpg", to: gallery + "/biden.jpg")
        #expect(try cbir.run(["index", gallery, "--db", db, "--device", "cpu"]).status == 0)
        #expect(try cbir.run(["label", gallery + "/biden.jpg", "Biden", "--db", db]).status == 0)

        try FileManager.default.removeItem(atPath: gallery + "/obama2.jpg")
        let kept = try cbir.run(["index", gallery, "--keep-missing", "--db", db, "--device", "cpu"])
        #expect(!kept.standardOutput.contains("removed"), "\(kept.standardOutput)")
        #expect(try statistics(db).images == 3)

        try FileManager.default.removeItem(atPath: gallery + "/biden.jpg")
        let reconciled = try cbir.run(["index", gallery, "--db", db, "--device", "cpu"])
        #expect(reconciled.standardOutput.contains("2 gone from the folder removed"), "\(reconciled.standardOutput)")
        #expect(try statistics(db) == Statistics(images: 1, failedImages: 0, faces: 1, labelledFaces: 0, labels: 0))
        let saved = reconciled.standardOutput.split(separator: "\n").first {
            $0.hasPrefix("labels of the removed files' faces saved to ")
        }
        .map { String($0.dropFirst("labels of the removed files' faces saved to ".count)) }
        let labels = try saved.map {
            try JSONDecoder().decode([FaceLabelRow].self, from: Data(contentsOf: URL(fileURLWithPath: $0)))
        }
        #expect(labels?.map(\.label) == ["Biden"], "\(reconciled.standardOutput)")
        if let saved { try? FileManager.default.removeItem(atPath: saved) }
    }

    /// A FIFO or a device given as a photo is refused before it is opened (opening a FIFO waits for a
    /// writer), with the error indexing gives.
    @Test func fifoAndDeviceGivenAsPhotos() throws {
        defer { cleanUp() }
        let fifo = folder + "/photo.jpg", db = folder + "/cbir.sqlite"
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(try cbir.run(["index", Self.photos + "/train/obama", "--db", db, "--device", "cpu"]).status == 0)
        let timeout = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/timeout"))
        for (arguments, kind) in [
            (["query", fifo, "--db", db], "a FIFO"), (["detect", fifo], "a FIFO"),
            (["identify", "/dev/zero", "--db", db], "a device"), (["labels", "--import", fifo, "--db", db], "a FIFO"),
        ] {
            let output = try timeout.run(["10", cbir.executable.path] + arguments)
            #expect(
                output.status == 1 && output.standardError.contains("not a regular file but \(kind)"),
                "\(arguments): \(output.status) \(output.standardError)")
        }
    }

    /// The commands that only read or change rows open the catalog without a model and without OpenCL:
    /// with no models folder they work, and pocl's kernel cache stays empty.
    @Test func readingCommandsNeedNoModels() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite", cache = folder + "/pocl-cache"
        #expect(try cbir.run(["index", Self.photos + "/train", "--db", db, "--device", "cpu"]).status == 0)
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let environment = ["FACESEARCH_MODELS": "/nonexistent", "POCL_CACHE_DIR": cache, "XDG_CACHE_HOME": cache]
        for command in [
            ["stats"], ["photos", "1"], ["people"], ["labels", "--export", folder + "/labels.json"], ["check"],
            ["label", "1", "Ada"], ["people", "name", "Ada", "Ada Lovelace"], ["remove", Self.photos + "/train/biden"],
        ] {
            let output = try cbir.run(command + ["--db", db], environment: environment)
            #expect(output.status == 0, "\(command): \(output.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
    }

    /// A models folder that cannot be entered, or a file where the folder should be, is said to be so, not
    /// "missing".
    @Test func unreadableModelsFolder() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite", probe = Self.photos + "/test/obama1.jpg"
        #expect(try cbir.run(["index", Self.photos + "/train/obama", "--db", db, "--device", "cpu"]).status == 0)
        _ = try runUnprivileged(["stats", "--db", db])  // copies the models where `nobody` reads them
        try chmod(["000", folder + "/models"])
        let closed = try runUnprivileged(["identify", probe, "--db", db])
        #expect(
            closed.status == 1
                && closed.standardError.contains("permission denied: the folder \(folder)/models cannot be entered"),
            "\(closed.standardError)")
        let file = folder + "/not-a-folder"
        try Data().write(to: URL(fileURLWithPath: file))
        let notFolder = try cbir.run(["identify", probe, "--db", db], environment: ["FACESEARCH_MODELS": file])
        #expect(
            notFolder.status == 1
                && notFolder.standardError.contains("\(file) is a file, not a folder (FACESEARCH_MODELS is \(file))"),
            "\(notFolder.standardError)")
    }

    /// Option values that cannot mean anything are refused with a message that says why.
    @Test func badOptionValues() throws {
        defer { cleanUp() }
        let probe = Self.photos + "/test/obama1.jpg"
        for (arguments, message) in [
            (["identify", probe, "--threshold", "nan"], "--threshold must be a number"),
            (["identify", probe, "--threshold", "-1"], "--threshold must be a number"),
            (["query", probe, "--top", "-1"], "--top must be at least 1"),
            (["query", probe, "--face", "0"], "--face counts from 1"),
            (["query", probe, "--radius", "-2"], "--radius cannot be negative"),
            (["index", Self.photos, "--jobs", "0"], "--jobs must be at least 1"),
            (["index", Self.photos, "--batch", "0"], "--batch must be at least 1"),
            (["index", Self.photos, "--jobs", "64"], "--jobs must be at least 1 and at most 16"),
            (["index", Self.photos, "--batch", "100000"], "--batch must be at least 1 and at most 64"),
            (["index", Self.photos, "--jobs", "8", "--batch", "64"], "--jobs × --batch must be at most 256"),
        ] {
            let output = try cbir.run(arguments)
            #expect(
                output.status != 0 && output.standardError.contains(message), "\(arguments): \(output.standardError)")
        }
        guard TestDevices.hasOpenCL else { return }  // the pocl message needs pocl
        let unwritable = try cbir.run(["devices"], environment: ["POCL_CACHE_DIR": "/proc/pocl-cache"])
        #expect(
            (unwritable.standardOutput + unwritable.standardError).contains(
                "pocl's kernel cache /proc/pocl-cache cannot be written"),
            "\(unwritable.standardOutput) \(unwritable.standardError)")
    }

    /// Indexing killed (SIGKILL) at 20 random moments, then finished: the database passes `check` and
    /// holds the same photos and faces as a run that was never interrupted.
    @Test func soakUnderKills() throws {
        defer { cleanUp() }
        let db = folder + "/cbir.sqlite", clean = folder + "/clean.sqlite"
        let arguments = ["index", Self.photos, "--device", "cpu"]
        var generator = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        for _ in 0..<20 {
            let process = Process()
            process.executableURL = cbir.executable
            process.arguments = arguments + ["--db", db]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 300_000...2_500_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(try cbir.run(arguments + ["--db", db]).status == 0)
        #expect(try cbir.run(arguments + ["--db", clean]).status == 0)
        let check = try cbir.run(["check", "--db", db])
        #expect(check.status == 0 && check.standardOutput.contains("sound"), "\(check.standardOutput)")
        func rows(_ path: String) throws -> [String] {
            try DatabaseQueue(path: path).read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT path || ' ' || status || ' ' || IFNULL(group_concat(x || ',' || y || ',' || \
                        faces.width || ',' || faces.height, ';'), '')
                        FROM images LEFT JOIN faces ON faces.image_id = images.id GROUP BY images.id ORDER BY path
                        """)
            }
        }
        let (killed, uninterrupted) = (try rows(db), try rows(clean))
        #expect(killed == uninterrupted && !killed.isEmpty)
    }
}
