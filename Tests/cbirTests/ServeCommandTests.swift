import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `cbir serve` as a user runs it: a process that answers on loopback until stopped, and refuses another
/// address without a token.
@Suite(.needs(.ukbenchDev)) struct ServeCommandTests {
    struct Stats: Decodable {
        let images, printedImages: Int
        let writable: Bool
    }

    @Test func servesTheDatabaseOnLoopbackUntilStopped() async throws {
        let folder = temporaryPath("serve"), photos = folder + "/photos", database = folder + "/cbir.sqlite"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for number in 0..<4 {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: photos + "/" + name)
        }
        let cbir = try CommandRunner(product: "cbir")
        #expect(try cbir.run(["index", photos, "--db", database, "--no-faces"]).status == 0)

        let port = Int.random(in: 20000..<40000)
        let refused = try cbir.run(["serve", "--db", database, "--host", "0.0.0.0", "--port", String(port)])
        #expect(refused.status == 1 && refused.standardError.contains("without a token"), "\(refused)")

        let server = try await RunningServer(cbir, database: database, port: port)
        defer { server.stop() }
        let stats = try await server.get("/api/stats", as: Stats.self)
        #expect(
            stats.images == 4 && stats.printedImages == 4 && stats.writable, "\(stats)")
    }

    struct Group: Decodable {
        struct Member: Decodable {
            let image: Int64
            let path: String
        }
        let photos: [Member]
    }
    struct Duplicates: Decodable {
        struct Groups: Decodable { let items: [Group] }
        let groups: Groups
    }
    struct Report: Decodable {
        struct Move: Decodable { let path, destination: String }
        let run: Int64
        let moved: [Move]
    }
    struct Run: Decodable {
        let id: Int64
        let moved, returned: Int
        let undone: Double?
    }
    struct Undo: Decodable { let returned: [String] }

    /// The duplicates page's cleanup as its script sends it, on a running server: a copy kept, the original
    /// moved to the server's trash (a freedesktop.org one: the file, and its `.trashinfo`) and out of the
    /// catalog; a change from another site's page refused; the run listed, and its undo puts the file back,
    /// bytes and rows.
    @Test func duplicatesAreCleanedUpFromThePageAndUndone() async throws {
        let folder = temporaryPath("serve-cleanup"), photos = folder + "/photos", database = folder + "/cbir.sqlite"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: photos + "/copies", withIntermediateDirectories: true)
        for number in [0, 4, 8] {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: photos + "/" + name)
        }
        let original = photos + "/ukbench00000.jpg", copy = photos + "/copies/ukbench00000.jpg"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let bytes = try #require(FileManager.default.contents(atPath: original))
        let cbir = try CommandRunner(product: "cbir")
        #expect(try cbir.run(["index", photos, "--db", database, "--no-faces"]).status == 0)
        let trash = folder + "/xdg/Trash"
        let server = try await RunningServer(
            cbir, database: database, port: Int.random(in: 20000..<40000),
            environment: ["XDG_DATA_HOME": folder + "/xdg"])
        defer { server.stop() }

        func group() async throws -> Group? {
            try await server.get("/api/duplicates", as: Duplicates.self).groups.items.first {
                $0.photos.contains { $0.path == copy }
            }
        }
        let found = try #require(try await group())
        let kept = try #require(found.photos.first { $0.path == copy }),
            moving = try #require(found.photos.first { $0.path == original })
        let choice = #"{"groups": [{"keep": \#(kept.image), "move": [\#(moving.image)]}]}"#
        let elsewhere = try await server.post(
            "/api/duplicates/cleanup", json: choice, headers: ["Origin": "http://elsewhere.example"])
        #expect(elsewhere.status == 403 && FileManager.default.fileExists(atPath: original))

        let cleaned = try await server.post("/api/duplicates/cleanup", json: choice)
        #expect(cleaned.status == 200, "\(String(decoding: cleaned.data, as: UTF8.self))")
        let report = try JSONDecoder().decode(Report.self, from: cleaned.data)
        #expect(
            report.moved.map(\.path) == [original]
                && report.moved.first?.destination == trash + "/files/ukbench00000.jpg")
        #expect(!FileManager.default.fileExists(atPath: original) && FileManager.default.fileExists(atPath: copy))
        #expect(FileManager.default.contents(atPath: trash + "/files/ukbench00000.jpg") == bytes)
        let info = (try? String(contentsOfFile: trash + "/info/ukbench00000.jpg.trashinfo", encoding: .utf8)) ?? ""
        #expect(info.hasPrefix("[Trash Info]\nPath=") && info.contains("ukbench00000.jpg\nDeletionDate="), "\(info)")
        #expect(try await group() == nil)
        #expect(try await server.get("/api/stats", as: Stats.self).images == 3)
        let runs = try await server.get("/api/duplicates/runs", as: [Run].self)
        #expect(runs.count == 1 && runs.first?.id == report.run && runs.first?.moved == 1)
        let page = try await server.text("/duplicates/runs?run=\(report.run)")
        #expect(
            page.contains("Run \(report.run)") && page.contains("data-undo=\"/api/duplicates/runs/\(report.run)/undo\"")
        )

        let undone = try await server.post("/api/duplicates/runs/\(report.run)/undo", json: "{}")
        let undo = try JSONDecoder().decode(Undo.self, from: undone.data)
        #expect(undone.status == 200 && undo.returned == [original], "\(String(decoding: undone.data, as: UTF8.self))")
        #expect(FileManager.default.contents(atPath: original) == bytes)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: trash + "/files")) ?? ["?"]).isEmpty)
        #expect(try await server.get("/api/stats", as: Stats.self).images == 4)
        #expect(try await group()?.photos.count == 2)
        let after = try await server.get("/api/duplicates/runs", as: [Run].self)
        #expect(after.first?.moved == 0 && after.first?.returned == 1 && after.first?.undone != nil)
    }
}

/// `cbir serve` running on loopback, answering (started by the initialiser, which waits for its first answer as
/// `FirstAnswer` does), until `stop()`.
struct RunningServer {
    let server: BackgroundCommand
    let base: String

    /// With `options` beside the database and the port, what it prints going to the file `log` (by default one
    /// of its own in the temporary folder).
    init(
        _ cbir: CommandRunner, database: String, port: Int, options: [String] = [],
        environment: [String: String] = [:], log: String? = nil
    ) async throws {
        server = try BackgroundCommand(
            cbir, ["serve", "--db", database, "--port", String(port)] + options, environment: environment,
            log: log ?? temporaryPath("serve") + ".log")
        base = "http://127.0.0.1:\(port)"
        let server = server, stats = try url("/api/stats")
        let answered = try await FirstAnswer.wait(
            while: { server.process.isRunning },
            { (try? await Self.data(URLRequest(url: stats)))?.status == 200 })
        if answered { return }
        stop()
        throw FirstAnswer.silence(at: base, printed: server.output)
    }

    func stop() { server.stop() }

    private func url(_ path: String) throws -> URL {
        guard let url = URL(string: base + path) else { throw URLError(.badURL) }
        return url
    }

    private static func data(_ request: URLRequest) async throws -> (status: Int, data: Data) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        try JSONDecoder().decode(type, from: try await Self.data(URLRequest(url: try url(path))).data)
    }

    /// A page's HTML.
    func text(_ path: String) async throws -> String {
        var request = URLRequest(url: try url(path))
        request.setValue("text/html", forHTTPHeaderField: "Accept")
        return String(decoding: try await Self.data(request).data, as: UTF8.self)
    }

    func post(_ path: String, json: String, headers: [String: String] = [:]) async throws -> (status: Int, data: Data) {
        var request = URLRequest(url: try url(path))
        request.httpMethod = "POST"
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await Self.data(request)
    }
}
