import Foundation
import TestSupport
import Testing

/// `cbir similar` end to end on UKBench dev photos: index twenty objects' views without faces, then ask.
@Suite(.needs(.ukbenchDev)) struct SimilarCommandTests {
    struct Report: Decodable {
        struct Result: Decodable {
            let path: String
            let distance: Float
        }
        let query: String
        let results: [Result]
    }

    /// The first 80 photos (20 objects × 4 views) in a folder of their own, indexed without faces.
    static func indexedFolder(on store: TestStore = .sqlite) throws -> (folder: String, database: String) {
        let folder = temporaryPath("similar"), photos = folder + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for number in 0..<80 {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: photos + "/" + name)
        }
        let database = try store.catalog(in: folder, name: "similar")
        let index = try CommandRunner(product: "cbir").run(["index", photos, "--db", database, "--no-faces"])
        #expect(index.status == 0 && index.standardOutput.contains("80 photos printed"), "\(index)")
        return (folder, database)
    }

    /// Every indexed photo asked in one call: its own object's other three views fill its top 4 for most of
    /// them (the plain print's N-S score on the whole dev set is 3.967, the expanded ranking's 4.000), itself
    /// first, nearly at distance 0 (its augmented print holds its print).
    @Test(arguments: TestStore.allCases) func theOtherViewsComeFirst(store: TestStore) throws {
        let (folder, database) = try Self.indexedFolder(on: store)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queries = (0..<80).map { String(format: "%@/photos/ukbench%05d.jpg", folder, $0) }
        let output = try CommandRunner(product: "cbir").run(
            ["similar"] + queries + ["--db", database, "--top", "4", "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        let reports = try JSONDecoder().decode([Report].self, from: Data(output.standardOutput.utf8))
        #expect(reports.count == 80)
        func group(_ path: String) -> Int { (Int(path.filter(\.isNumber).suffix(5)) ?? -1) / 4 }
        var perfect = 0
        for report in reports {
            #expect(report.results.first?.path.hasSuffix(report.query.suffix(16)) == true)
            #expect(report.results.first.map { abs($0.distance) < 0.01 } == true, "\(report.results)")
            if report.results.count == 4, report.results.allSatisfy({ group($0.path) == group(report.query) }) {
                perfect += 1
            }
        }
        #expect(perfect >= 72, "\(perfect) of 80 queries had their object's four views as their top 4")
    }

    /// On PostgreSQL, searches that take their candidates from the HNSW index (every search does with the
    /// exact-search limit at 0) and re-rank them answer as the exact search over every print does.
    @Test func theIndexAnswersAsTheExactSearch() throws {
        let (folder, database) = try Self.indexedFolder(on: .postgres)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = String(database.split(separator: "/").last ?? "")
        // The planner would rightly scan so small a table: the index is what is tried here.
        try TestPostgres.run("ALTER DATABASE \(name) SET enable_seqscan = off", in: name)
        let scans = try TestPostgres.indexScans("photo_prints_nearest", in: name)
        let queries = (0..<80).map { String(format: "%@/photos/ukbench%05d.jpg", folder, $0) }
        let arguments = ["similar"] + queries + ["--db", database, "--top", "4", "--json"]
        let cbir = try CommandRunner(product: "cbir")
        let exact = try cbir.run(arguments),
            indexed = try cbir.run(arguments, environment: ["FACESEARCH_EXACT_SEARCH": "0"])
        #expect(exact.status == 0 && indexed.status == 0, "\(exact.standardError) \(indexed.standardError)")
        let one = try JSONDecoder().decode([Report].self, from: Data(exact.standardOutput.utf8))
        let other = try JSONDecoder().decode([Report].self, from: Data(indexed.standardOutput.utf8))
        #expect(one.count == 80 && other.count == 80)
        for (exact, indexed) in zip(one, other) {
            #expect(exact.results.map(\.path) == indexed.results.map(\.path), "\(exact.query)")
            #expect(zip(exact.results, indexed.results).allSatisfy { abs($0.distance - $1.distance) < 1e-5 })
        }
        let after = try TestPostgres.indexScans("photo_prints_nearest", in: name, after: scans)
        #expect(after >= scans + 80, "\(scans) → \(after)")
    }

    /// A photo that is not in the database is printed and searched; a file that is not an image is an
    /// error naming it; an unprinted database says how to print it.
    @Test func otherPhotosAndBadInput() throws {
        let (folder, database) = try Self.indexedFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cbir = try CommandRunner(product: "cbir")
        let outside = SharedData.root + "/ukbench-dev/ukbench00081.jpg"  // object 20, not indexed
        let other = try cbir.run(["similar", outside, "--db", database, "--top", "3", "--json"])
        let reports = try JSONDecoder().decode([Report].self, from: Data(other.standardOutput.utf8))
        #expect(other.status == 0 && reports.first?.results.count == 3, "\(other)")
        #expect(reports.first?.results.allSatisfy { $0.distance > 0.05 } == true)

        let text = folder + "/notes.jpg"
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: text))
        let bad = try cbir.run(["similar", text, "--db", database])
        #expect(bad.status != 0 && bad.standardError.contains(text), "\(bad)")

        let empty = folder + "/empty.sqlite"
        let index = try cbir.run(["index", folder + "/photos", "--db", empty, "--no-photos"])
        #expect(index.status == 0)
        let unprinted = try cbir.run(["similar", outside, "--db", empty])
        #expect(unprinted.status != 0 && unprinted.standardError.contains("no photo is printed"), "\(unprinted)")
    }
}
