import Foundation
import GRDB
import TestSupport
import Testing

/// `cbir copy` between SQLite and PostgreSQL, on the sample photos with faces, prints, names and a hidden person:
/// the catalog that comes back from PostgreSQL holds the same rows (prints at half precision) and answers the
/// same, and every way a copy can fail leaves what is stored as it was and says why in one line.
@Suite(.serialized, .enabled(if: TestPostgres.isRunning, "\(TestPostgres.absence)"))
struct CopyCommandTests {
    let folder = NSTemporaryDirectory() + "cbir-copy-tests-" + UUID().uuidString
    let cbir: CommandRunner

    init() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        cbir = try CommandRunner(product: "cbir")
    }

    /// Runs `cbir`, the server's password in its environment.
    func run(_ arguments: [String]) throws -> CommandRunner.Output {
        try cbir.run(arguments, environment: TestPostgres.environment)
    }

    /// Runs `cbir`, expecting success; returns what it printed.
    func succeed(_ arguments: [String]) throws -> String {
        let output = try run(arguments)
        #expect(output.status == 0, "\(arguments): \(output.standardError)")
        return output.standardOutput
    }

    /// Runs `cbir`, expecting it to fail; returns what it said.
    func fail(_ arguments: [String]) throws -> String {
        let output = try run(arguments)
        #expect(output.status != 0, "\(arguments) succeeded: \(output.standardOutput)")
        return output.standardError
    }

    /// A catalog of the sample photos with every table filled: faces grouped into people, one named, one labelled,
    /// one split out and hidden.
    func sampleCatalog() throws -> String {
        let db = folder + "/original.sqlite"
        _ = try succeed(["index", SamplePhotos.root + "/gallery", "--db", db, "--device", "cpu"])
        _ = try succeed(["label", SamplePhotos.root + "/gallery/biden.jpg", "Joe Biden", "--db", db])
        _ = try succeed(["people", "name", "1", "Barack Obama", "--db", db])
        let split = try succeed(["people", "split", "4", "--db", db])
        let person = try #require(split.split(separator: ":").first?.split(separator: " ").last.map(String.init))
        _ = try succeed(["people", "hide", person, "--db", db])
        return db
    }

    @Test func aCatalogComesBackFromPostgreSQLAsItWent() throws {
        let original = try sampleCatalog()
        let url = try TestPostgres.database("cbir_test_copy")
        let there = try succeed(["copy", "--from", original, "--to", url])
        #expect(there.contains("copied \(original) to \(url), checked row for row"), "\(there)")
        let back = folder + "/back.sqlite"
        _ = try succeed(["copy", "--from", url, "--to", back])

        // The same answers, distances within what half-precision prints change.
        let probe = SamplePhotos.root + "/gallery/obama.jpg"
        for arguments in [
            ["stats"], ["people", "--all"], ["duplicates"], ["duplicates", "--similar"], ["similar", probe],
        ] {
            let answers = try [original, back].map { db in
                try JSONSerialization.jsonObject(with: Data(succeed(arguments + ["--json", "--db", db]).utf8))
            }
            #expect(Self.alike(answers[0], answers[1]), "\(arguments)")
        }
        try expectSameRows(original, back)
    }

    @Test func aCopyThatCannotBeMadeSaysWhyAndKeepsWhatIsStored() throws {
        let original = try sampleCatalog()
        let url = try TestPostgres.database("cbir_test_copy_refused")
        _ = try succeed(["copy", "--from", original, "--to", url])

        // Into a catalog that holds photos: refused, and the catalog there is as it was.
        #expect(try fail(["copy", "--from", original, "--to", url]).contains("already holds a catalog (6 photos"))
        let again = folder + "/again.sqlite"
        _ = try succeed(["copy", "--from", url, "--to", again])
        try expectSameRows(original, again)
        // Into a SQLite file that holds a catalog: the same.
        #expect(try fail(["copy", "--from", url, "--to", again]).contains("already holds a catalog"))

        // A wrong password: said, never shown.
        let wrong = url.replacingOccurrences(of: "facesearch@", with: "facesearch:not-the-password@")
        let refused = try fail(["copy", "--from", original, "--to", wrong])
        #expect(refused.contains("the server refused the password for user facesearch"), "\(refused)")
        #expect(!refused.contains("not-the-password"))

        // No server at the port.
        let down = try fail(["copy", "--from", original, "--to", "postgres://facesearch@127.0.0.1:9/cbir_test"])
        #expect(down.contains("no PostgreSQL server answers at 127.0.0.1:9"), "\(down)")

        // A catalog a later version made: left alone.
        try TestPostgres.run(
            "INSERT INTO catalog_migrations (identifier) VALUES ('from a later cbir')", in: "cbir_test_copy_refused")
        let newer = try fail(["copy", "--from", url, "--to", folder + "/newer.sqlite"])
        #expect(newer.contains("made by a newer version of cbir"), "\(newer)")
    }

    /// Whether two JSON values are the same, numbers within 0.002.
    static func alike(_ first: Any, _ second: Any) -> Bool {
        switch (first, second) {
        case (let first as [String: Any], let second as [String: Any]):
            first.keys.sorted() == second.keys.sorted() && first.allSatisfy { alike($0.value, second[$0.key] ?? ()) }
        case (let first as [Any], let second as [Any]):
            first.count == second.count && zip(first, second).allSatisfy(alike)
        case (let first as NSNumber, let second as NSNumber): abs(first.doubleValue - second.doubleValue) < 0.002
        case (let first as String, let second as String): first == second
        default: first is NSNull && second is NSNull
        }
    }

    /// Every table of two SQLite catalogs holds the same rows, prints within half precision.
    func expectSameRows(_ first: String, _ second: String) throws {
        let queues = try [first, second].map { try DatabaseQueue(path: $0) }
        for table in [
            "persons", "images", "faces", "face_descriptors", "face_embeddings", "photo_prints", "indexing_runs",
        ] {
            let rows = try queues.map { queue in
                try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") }
            }
            #expect(rows[0].count == rows[1].count, "\(table)")
            #expect(table == "indexing_runs" || !rows[0].isEmpty, "\(table) is empty: the test copies nothing there")
            for (before, after) in zip(rows[0], rows[1]) where table != "photo_prints" {
                #expect(before == after, "\(table)")
            }
            for (before, after) in zip(rows[0], rows[1]) where table == "photo_prints" {
                let prints = [before, after].map { [Float](floatBytes: $0["print"] as Data) }
                #expect(zip(prints[0], prints[1]).allSatisfy { abs($0 - $1) <= abs($0) / 1000 + 1e-7 })
                #expect(before["hash"] as Int64 == after["hash"] as Int64)
            }
        }
    }
}

extension [Float] {
    fileprivate init(floatBytes: Data) {
        self = floatBytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
