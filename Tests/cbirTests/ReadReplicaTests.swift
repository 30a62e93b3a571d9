import Foundation
import TestSupport
import Testing

/// `cbir serve --read-db` on a streaming replica of a PostgreSQL catalog's server (`scripts/postgres.sh replica`):
/// it answers as a server on the primary does, reads from the replica (a change written past the server, while
/// the replica's replay is paused, is not seen at once), sees its own writes at once, and reads from the primary,
/// saying so, while the replica lags by more than 5 s or is down, then from the replica again.
@Suite(.serialized, .needs(.wildPhotos)) struct ReadReplicaTests {
    struct Person: Decodable, Equatable {
        let id: Int64
        let name: String?
        let faces: Int
    }
    struct People: Decodable, Equatable { let items: [Person] }
    struct Shown: Decodable { let person: Person }

    /// The name the server shows for person `id`.
    func shownName(of id: Int64, on server: RunningServer) async throws -> String? {
        try await server.get("/api/people/\(id)", as: Shown.self).person.name
    }

    @Test func aServerReadsFromTheReplicaAndFallsBackToThePrimary() async throws {
        guard TestPostgres.isRunning else { try Test.cancel(Comment(rawValue: TestPostgres.absence)) }
        for (name, value) in TestPostgres.environment { setenv(name, value, 0) }
        let folder = temporaryPath("replica")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let primary = TestPostgres.Instance("replicated", port: 54_343), replicaPort = 54_344
        try primary.start()
        defer { try? primary.stop() }
        let name = "cbir_replicated", db = try primary.database(name)
        let cbir = try CommandRunner(product: "cbir")
        let indexed = try cbir.run(["index", SharedData.root + "/wild-photos/train", "--db", db, "--device", "cpu"])
        try #require(indexed.status == 0, "\(indexed.standardError)")
        try primary.startReplica(port: replicaPort)
        defer { try? primary.stopReplica(port: replicaPort) }
        let replica = db.replacingOccurrences(of: ":54343/", with: ":\(replicaPort)/")

        let log = folder + "/serve.log"
        let onPrimary = try await RunningServer(cbir, database: db, port: Int.random(in: 20000..<30000))
        defer { onPrimary.stop() }
        let server = try await RunningServer(
            cbir, database: db, port: Int.random(in: 30000..<40000), options: ["--read-db", replica], log: log)
        defer { server.stop() }
        let people = try await server.get("/api/people", as: People.self)
        #expect(people == (try await onPrimary.get("/api/people", as: People.self)) && people.items.count == 4)

        // Written past the server while the replica replays nothing: not seen at once, then seen from the primary
        // once the replica is 5 s behind.
        let first = try #require(people.items.first?.id)
        try primary.run("SELECT pg_wal_replay_pause()", in: name, replica: replicaPort)
        #expect(try cbir.run(["people", "name", "\(first)", "Ann", "--db", db]).status == 0)
        #expect(try await shownName(of: first, on: server) == nil, "read from the primary")
        var seen = false
        for _ in 0..<150 where !seen {
            try await Task.sleep(for: .milliseconds(100))
            seen = try await shownName(of: first, on: server) == "Ann"
        }
        #expect(seen, "the replica's lag never sent reads to the primary")
        // Its own write it sees at once, from the primary, though the replica still replays nothing.
        let second = try #require(people.items.last?.id)
        let named = try await server.post("/api/people/\(second)", json: #"{"name": "Bo"}"#)
        #expect(named.status == 200)
        #expect(try await shownName(of: second, on: server) == "Bo")
        try primary.run("SELECT pg_wal_replay_resume()", in: name, replica: replicaPort)

        // The replica down: the primary answers; up again: the replica does, once it has caught up.
        try primary.stopReplica(port: replicaPort)
        #expect(try await shownName(of: second, on: server) == "Bo")
        try primary.startReplica(port: replicaPort)
        try await Task.sleep(for: .seconds(6))
        #expect(try await shownName(of: first, on: server) == "Ann")
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(said.contains("is more than 5 s behind the primary"), "\(said)")
        #expect(said.contains("does not answer"), "\(said)")
        #expect(said.contains("reading from the replica"), "\(said)")
    }
}
