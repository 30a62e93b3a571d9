import Foundation
import ImageKernels
import TestSupport
import Testing

/// Several machines at work on one library, on test hosts of this one machine (network namespaces on a private
/// network, `scripts/hosts.sh`): PostgreSQL's primary on one, its streaming replica on another, a `cbir index`
/// worker on each of two more, `cbir serve` on a fifth, and the test's questions asked from a sixth. Both workers
/// index a library of the wild photos, ORL and the UKBench dev set; one is killed with SIGKILL while it holds a
/// batch, and the other finishes. The catalog then holds what one process indexing the library stores (photos,
/// faces, descriptors, embeddings, prints, people up to ids), `cbir check` passes, and a server reading from the
/// replica answers the same people and similar photos as one on the primary, without falling back to it.
@Suite(.serialized, .needs(.orl, .wildPhotos, .ukbenchDev)) struct CrossHostTests {
    @Test func workersOnTwoHostsIndexALibraryThatAReplicaServes() async throws {
        if let reason = TestHost.unavailable { try Test.cancel(Comment(rawValue: reason)) }
        guard TestPostgres.isRunning else { try Test.cancel(Comment(rawValue: TestPostgres.absence)) }
        for (name, value) in TestPostgres.environment { setenv(name, value, 0) }
        let hosts = try TestHost.up()
        defer { TestHost.down() }
        func host(_ name: String) throws -> TestHost { try #require(hosts[name]) }
        let folder = temporaryPath("hosts")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = try Self.library(in: folder)
        let cbir = try CommandRunner(product: "cbir"), asker = try host("client"), client = asker.running(cbir)

        let alone = folder + "/alone.sqlite"
        let indexed = try cbir.run(["index", library.path, "--db", alone, "--device", "cpu"])
        try #require(indexed.status == 0, "\(indexed.standardError)")

        let primary = TestPostgres.Instance("hosts", port: 54_353, on: try host("primary"))
        try primary.start()
        defer { try? primary.stop() }
        let name = "cbir_hosts", db = try primary.database(name)
        let replicaHost = try host("replica"), replicaPort = 54_354
        try primary.startReplica(port: replicaPort, on: replicaHost)
        defer { try? primary.stopReplica(port: replicaPort) }

        let workers = try ["worker1", "worker2"].map { name in
            try BackgroundCommand(
                try host(name).running(cbir), ["index", library.path, "--db", db, "--device", "cpu", "--lease", "3"],
                environment: ["FACESEARCH_MACHINE": name], log: "\(folder)/\(name).log")
        }
        let doomed = workers[0], survivor = workers[1], queue = QueueStatus(cbir: client, db: db)
        let holding = try queue.wait { status in
            QueueStatus.batchesDone(status) >= 12 && QueueStatus.holds(status, pid: doomed.process.processIdentifier)
        }
        try #require(holding, "worker1 never held a batch: \(doomed.output.suffix(800))")
        doomed.kill()
        #expect(survivor.finish(within: 150) == 0, "\(survivor.output.suffix(800))")
        let shown = try queue.text()
        #expect(
            shown.contains("batches: \(library.batches) done (\(library.files) files), 0 claimed, 0 left, 0 failed"),
            "\(shown)")
        #expect(shown.contains(":\(doomed.process.processIdentifier):"), "the killed worker stored no batch: \(shown)")
        let check = try client.run(["check", "--db", db])
        #expect(check.status == 0, "\(check.standardOutput) \(check.standardError)")
        let shared = try CatalogContents.lines(of: db, cbir: client, in: folder)
        let expected = try CatalogContents.lines(alone)
        #expect(shared == expected, "\(CatalogContents.difference(shared, expected))")

        // The replica has replayed all the primary wrote before the servers are asked.
        let written = try primary.run("SELECT pg_current_wal_lsn()", in: name).trimmingCharacters(
            in: .whitespacesAndNewlines)
        var replayed = false
        for _ in 0..<100 where !replayed {
            let caughtUp = try primary.run(
                "SELECT pg_last_wal_replay_lsn() >= '\(written)'", in: name, replica: replicaPort)
            replayed = caughtUp.hasPrefix("t")
            if !replayed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(replayed, "the replica never replayed the primary's log up to \(written)")

        let serverHost = try host("server"), token = "cross-host-" + UUID().uuidString
        let replica = db.replacingOccurrences(
            of: "@\(try host("primary").address):54353/", with: "@\(replicaHost.address):\(replicaPort)/")
        let onPrimary = try await HostedServer(
            cbir, on: serverHost, port: 8080, database: db, token: token, log: folder + "/primary-serve.log",
            asked: asker)
        defer { onPrimary.stop() }
        let onReplica = try await HostedServer(
            cbir, on: serverHost, port: 8081, database: db, options: ["--read-db", replica], token: token,
            log: folder + "/replica-serve.log", asked: asker)
        defer { onReplica.stop() }
        // The same answers, compared as JSON values (the order of an object's keys differs between processes).
        let people = try onReplica.items("/api/people")
        #expect(people == (try onPrimary.items("/api/people")))
        #expect(people.count > 40, "the servers list \(people.count) people")
        let photos = try onReplica.items("/api/photos")
        #expect(photos == (try onPrimary.items("/api/photos")))
        let ids = photos.compactMap { $0["id"] as? Int }
        #expect(ids.count > 600, "the servers list \(ids.count) photos")
        for id in ids.enumerated().filter({ $0.offset % 40 == 0 }).map(\.element) {
            let similar = try onReplica.json("/api/photos/\(id)/similar")
            #expect(similar == (try onPrimary.json("/api/photos/\(id)/similar")), "photo \(id)")
            #expect(((similar["photos"] as? [Any])?.count ?? 0) > 0, "photo \(id): \(similar)")
        }
        let said = (try? String(contentsOfFile: folder + "/replica-serve.log", encoding: .utf8)) ?? ""
        #expect(!said.contains("reading from the primary"), "\(said)")
    }

    /// A library of the wild photos, ORL and the UKBench dev set in `folder`: a link to each of their files,
    /// in folders named as theirs are; how many files, and how many batches of 8 its queue takes.
    static func library(in folder: String) throws -> (path: String, files: Int, batches: Int) {
        let library = folder + "/library", files = FileManager.default
        var count = 0
        for dataset in [SharedDataset.wildPhotos, .orl, .ukbenchDev] {
            for file in try files.subpathsOfDirectory(atPath: dataset.path).sorted() {
                var isFolder: ObjCBool = false
                guard files.fileExists(atPath: dataset.path + "/" + file, isDirectory: &isFolder), !isFolder.boolValue,
                    !file.split(separator: "/").contains(where: { $0.hasPrefix(".") })
                else { continue }
                let link = library + "/" + dataset.rawValue + "/" + file
                try files.createDirectory(
                    atPath: FileSystemPath.folder(of: link), withIntermediateDirectories: true)
                try files.createSymbolicLink(atPath: link, withDestinationPath: dataset.path + "/" + file)
                count += 1
            }
        }
        return (library, count, (count + 7) / 8)
    }
}

/// `cbir serve` on a test host, listening on the host's address with a token, asked by `curl` from another
/// host (started by the initialiser, which waits for its first answer as `FirstAnswer` does), until `stop()`.
struct HostedServer {
    let server: BackgroundCommand
    let base: String
    let token: String
    let curl: CommandRunner

    init(
        _ cbir: CommandRunner, on host: TestHost, port: Int, database: String, options: [String] = [],
        token: String, log: String, asked client: TestHost
    ) async throws {
        server = try BackgroundCommand(
            host.running(cbir),
            ["serve", "--db", database, "--host", host.address, "--port", "\(port)", "--token", token] + options,
            log: log)
        base = "http://\(host.address):\(port)"
        self.token = token
        curl = client.running(CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/curl")))
        let server = server, probe = self
        if try await FirstAnswer.wait(while: { server.process.isRunning }, { (try? probe.text("/api/stats")) != nil }) {
            return
        }
        stop()
        throw FirstAnswer.silence(at: base, printed: server.output)
    }

    func stop() { server.stop() }

    /// What the server answers at `path`; an error where it does not answer 200.
    func text(_ path: String) throws -> String {
        let asked = try curl.run([
            "--silent", "--show-error", "--fail", "--max-time", "20", "--header", "Authorization: Bearer \(token)",
            base + path,
        ])
        guard asked.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: asked.standardError])
        }
        return asked.standardOutput
    }

    /// What the server answers at `path`, as a JSON object; an error where it is none.
    func json(_ path: String) throws -> NSDictionary {
        guard let object = try JSONSerialization.jsonObject(with: Data(try text(path).utf8)) as? NSDictionary else {
            throw CocoaError(.propertyListReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "\(path): not an object"])
        }
        return object
    }

    /// The items of every page of the list at `path` (`?page=` from 1 until the list's total is reached).
    func items(_ path: String) throws -> [NSDictionary] {
        var items: [NSDictionary] = []
        for page in 1...1000 {
            let listing = try json(path + "?page=\(page)")
            let more = listing["items"] as? [NSDictionary] ?? []
            items += more
            guard let total = listing["total"] as? Int, items.count < total, !more.isEmpty else { break }
        }
        return items
    }
}
