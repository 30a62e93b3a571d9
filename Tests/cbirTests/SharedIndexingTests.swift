import Foundation
import TestSupport
import Testing

/// Several `cbir index` workers on one folder and one catalog, as several machines would run them (each its own
/// `FACESEARCH_MACHINE`): they share its batches through the catalog's queue; a worker killed with SIGKILL while
/// it holds batches leaves them to the other once its lease runs out; a worker that would make rows of another
/// kind is refused; a PostgreSQL server stopped for 10 s mid-run is waited for. Each time the catalog ends holding
/// what one process indexing ORL alone stores: the same photos, faces, descriptors, embeddings, prints and people
/// (up to row ids), nothing lost or doubled.
@Suite(.serialized, .needs(.orl, .wildPhotos, .ukbenchDev)) struct SharedIndexingTests {
    static let orl = SharedData.root + "/orl"
    let cbir: CommandRunner
    let folder: String

    init() throws {
        cbir = try CommandRunner(product: "cbir")
        folder = NSTemporaryDirectory() + "cbir-shared-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// What one process indexing ORL alone into a SQLite file stores, made once for the suite.
    static let alone: Swift.Result<[String], any Error> = Swift.Result {
        let cbir = try CommandRunner(product: "cbir")
        let folder = NSTemporaryDirectory() + "cbir-shared-alone-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let indexed = try cbir.run(["index", orl, "--db", folder + "/alone.sqlite", "--device", "cpu"])
        guard indexed.status == 0 else { throw Failure(description: indexed.standardError) }
        return try CatalogContents.lines(folder + "/alone.sqlite")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts a worker indexing ORL into `db`, as if on the machine `name`.
    func worker(_ db: String, _ name: String, _ options: [String] = []) throws -> BackgroundCommand {
        try BackgroundCommand(
            cbir, ["index", Self.orl, "--db", db, "--device", "cpu"] + options,
            environment: ["FACESEARCH_MACHINE": name], log: "\(folder)/\(name).log")
    }

    /// What `cbir index --status` prints for `db`.
    func status(_ db: String) throws -> String { try QueueStatus(cbir: cbir, db: db).text() }

    /// Waits, up to a minute, until the queue's status says `condition`; false where it never did.
    func wait(for db: String, until condition: (String) -> Bool) throws -> Bool {
        try QueueStatus(cbir: cbir, db: db).wait(until: condition)
    }

    @Test(arguments: TestStore.allCases) func aKilledWorkersBatchesGoToTheOther(store: TestStore) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try store.catalog(in: folder, name: "killed")
        let doomed = try worker(db, "doomed", ["--lease", "3"]),
            survivor = try worker(db, "survivor", ["--lease", "3"])
        let pid = doomed.process.processIdentifier
        // Killed while it holds batches, once both have stored some.
        let holding = try wait(for: db) { status in
            QueueStatus.batchesDone(status) >= 4 && QueueStatus.holds(status, pid: pid)
        }
        let before = try status(db)
        try #require(holding, "the worker to kill never held a batch: \(before)")
        doomed.kill()
        let exit = survivor.finish(within: 180)
        #expect(exit == 0, "\(survivor.output)")
        #expect(survivor.output.contains("people: 400 faces grouped"), "\(survivor.output)")

        let shown = try status(db)
        #expect(shown.contains("finished"), "\(shown)")
        #expect(shown.contains("batches: 51 done (401 files), 0 claimed, 0 left, 0 failed"), "\(shown)")
        #expect(shown.contains(":\(pid):"), "the killed worker stored no batch: \(shown)")
        #expect(try cbir.run(["check", "--db", db]).status == 0)
        let alone = try Self.alone.get()
        let shared = try CatalogContents.lines(of: db, cbir: cbir, in: folder)
        #expect(shared.count == alone.count)
        #expect(shared == alone, "\(CatalogContents.difference(shared, alone))")
    }

    @Test func aWorkerOfAnotherKindIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try TestStore.postgres.catalog(in: folder, name: "refused")
        let first = try worker(db, "first")
        try #require(try wait(for: db) { $0.contains("being indexed") }, "\(first.output)")
        for options in [["--detector", "haar"], ["--no-photos"]] {
            let other = try cbir.run(["index", Self.orl, "--db", db, "--device", "cpu"] + options)
            #expect(other.status != 0, "\(options): \(other.standardOutput)")
            #expect(
                other.standardError.contains("this worker does not join the others: they make rows of another kind"),
                "\(options): \(other.standardError)")
        }
        // An older build: the catalog's schema has a migration it does not know.
        let name = String(db.split(separator: "/").last ?? "")
        try TestPostgres.run("INSERT INTO catalog_migrations (identifier) VALUES ('from-a-newer-build')", in: name)
        let older = try cbir.run(["index", Self.orl, "--db", db, "--device", "cpu"])
        #expect(older.status != 0)
        #expect(older.standardError.contains("made by a newer version of cbir"), "\(older.standardError)")
        try TestPostgres.run("DELETE FROM catalog_migrations WHERE identifier = 'from-a-newer-build'", in: name)
        #expect(first.finish(within: 180) == 0, "\(first.output)")
        let stored = try CatalogContents.lines(of: db, cbir: cbir, in: folder), alone = try Self.alone.get()
        #expect(stored == alone, "\(CatalogContents.difference(stored, alone))")
    }

    /// Photos with faces and photos without, stored by two workers a photo a batch at once: each write takes the
    /// catalog's tags in one order (workers-bench found two such workers deadlocked on PostgreSQL before).
    @Test func workersStoringFacesAndNoFacesAtOnceDoNotDeadlock() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try TestStore.postgres.catalog(in: folder, name: "mixed")
        let photos = folder + "/photos", faces = SharedData.root + "/wild-photos/train"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let withFaces = try FileManager.default.subpathsOfDirectory(atPath: faces).filter { $0.hasSuffix(".jpg") }
        for (number, photo) in withFaces.sorted().enumerated() {
            try FileManager.default.createSymbolicLink(
                atPath: photos + "/\(number)a.jpg", withDestinationPath: faces + "/" + photo)
            let plain = SharedData.root + String(format: "/ukbench-dev/ukbench%05d.jpg", number)
            try FileManager.default.createSymbolicLink(atPath: photos + "/\(number)b.jpg", withDestinationPath: plain)
        }
        let workers = try (1...2).map { number in
            try BackgroundCommand(
                cbir, ["index", photos, "--db", db, "--device", "cpu", "--batch", "1"],
                environment: ["FACESEARCH_MACHINE": "machine\(number)"], log: "\(folder)/mixed\(number).log")
        }
        for worker in workers { #expect(worker.finish(within: 180) == 0, "\(worker.output.suffix(600))") }
        let shown = try status(db), count = 2 * withFaces.count
        #expect(shown.contains("batches: \(count) done (\(count) files), 0 claimed, 0 left, 0 failed"), "\(shown)")
    }

    @Test func aServerStoppedForTenSecondsIsWaitedFor() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard TestPostgres.isRunning else { try Test.cancel(Comment(rawValue: TestPostgres.absence)) }
        for (name, value) in TestPostgres.environment { setenv(name, value, 0) }
        let server = TestPostgres.Instance("faults", port: 54_339)
        try server.start()
        defer { try? server.stop() }
        let db = try server.database("cbir_faults")
        let workers = try [worker(db, "one"), worker(db, "two")]
        try #require(try wait(for: db) { QueueStatus.batchesDone($0) >= 3 }, "\(workers.map(\.output))")
        try server.stop()
        let stopped = Date()
        usleep(10_000_000)
        try server.start()
        for worker in workers {
            #expect(worker.finish(within: 180) == 0, "\(worker.output)")
        }
        #expect(Date().timeIntervalSince(stopped) >= 10)
        let waited = workers.filter { $0.output.contains("waiting for the database") }
        #expect(!waited.isEmpty, "no worker said it waited: \(workers.map(\.output))")
        let shown = try status(db)
        #expect(shown.contains("batches: 51 done (401 files), 0 claimed, 0 left, 0 failed"), "\(shown)")
        let stored = try CatalogContents.lines(of: db, cbir: cbir, in: folder), alone = try Self.alone.get()
        #expect(stored == alone, "\(CatalogContents.difference(stored, alone))")
    }
}
