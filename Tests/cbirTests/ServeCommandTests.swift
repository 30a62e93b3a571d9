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

        let server = Process()
        server.executableURL = cbir.executable
        server.arguments = ["serve", "--db", database, "--port", String(port)]
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/stats"))
        var stats: Stats?
        for _ in 0..<150 where stats == nil {
            if let (data, response) = try? await URLSession.shared.data(from: url),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                stats = try JSONDecoder().decode(Stats.self, from: data)
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(
            stats?.images == 4 && stats?.printedImages == 4 && stats?.writable == true, "\(String(describing: stats))")
    }
}
