import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The wild photos and UKBench's dev set indexed into SQLite and into PostgreSQL give the same answers: the
/// index runs, stats, similar, photos found by words, duplicates (copies and other shots), query, people, and
/// the server's API over them. Prints are half precision on PostgreSQL, so their distances may differ by up to
/// `printTolerance`, and two results that close may trade places; everything else is equal.
@Suite(.serialized, .enabled(if: TestPostgres.isRunning, "\(TestPostgres.absence)"), .needs(.wildPhotos, .ukbenchDev))
struct StoreParityTests {
    static let folders = [SharedData.root + "/wild-photos", SharedData.root + "/ukbench-dev"]
    static let similarQueries =
        ["ukbench00000.jpg", "ukbench00004.jpg", "ukbench00101.jpg", "ukbench00202.jpg"].map {
            SharedData.root + "/ukbench-dev/" + $0
        } + [SharedData.root + "/wild-photos/misc/obama.jpg"]
    static let printTolerance: Float = 0.004

    struct Result: Decodable, Equatable {
        let path: String
        let distance: Float
    }
    struct Similar: Decodable {
        let query: String
        let results: [Result]
    }
    struct Words: Decodable, Equatable {
        struct Found: Decodable, Equatable {
            let path: String
            let score: Float
        }
        let words: [String]
        let results: [Found]
    }
    struct Group: Decodable {
        let best: String
        let photos: [Result]
    }
    struct Query: Decodable {
        let images: [Result]
        let faces: [Result]
    }

    /// What one store answered.
    struct Answers {
        var indexing: [String] = []
        var stats = ""
        var similar: [[Result]] = []
        var words: [Words] = []
        var copies: Set<[String]> = [], shots: Set<[String]> = []
        var query: [Query] = []
        var people: Set<[String]> = []
        var servedSimilar: [[Result]] = []
        var servedShots: Set<[String]> = []
    }

    @Test func bothStoresAnswerAlike() async throws {
        let folder = temporaryPath("parity")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cbir = try CommandRunner(product: "cbir")
        let sqlite = try await answers(of: cbir, on: try TestStore.sqlite.catalog(in: folder, name: "parity"))
        let postgres = try await answers(of: cbir, on: try TestStore.postgres.catalog(in: folder, name: "parity"))

        #expect(sqlite.indexing == postgres.indexing && sqlite.stats == postgres.stats)
        #expect(sqlite.indexing.first?.contains("0 failed") == true, "\(sqlite.indexing)")
        for (one, other) in zip(sqlite.similar + sqlite.servedSimilar, postgres.similar + postgres.servedSimilar) {
            #expect(Self.alike(one, other, within: Self.printTolerance), "\(one)\n\(other)")
        }
        #expect(sqlite.similar.count == Self.similarQueries.count && sqlite.servedSimilar.count == 3)
        #expect(sqlite.words.allSatisfy { !$0.results.isEmpty } && sqlite.words == postgres.words)
        #expect(!sqlite.copies.isEmpty && sqlite.copies == postgres.copies, "\(sqlite.copies)\n\(postgres.copies)")
        #expect(!sqlite.shots.isEmpty && sqlite.shots == postgres.shots)
        #expect(sqlite.servedShots == sqlite.shots && postgres.servedShots == postgres.shots)
        for (one, other) in zip(sqlite.query, postgres.query) {
            #expect(
                Self.alike(one.images, other.images, within: 1e-4) && Self.alike(one.faces, other.faces, within: 1e-4))
        }
        #expect(sqlite.people.count >= 4 && sqlite.people == postgres.people, "\(sqlite.people)\n\(postgres.people)")
    }

    /// Indexes the shared photos into the catalog at `db` and asks it everything, on the command line and through
    /// `cbir serve`.
    func answers(of cbir: CommandRunner, on db: String) async throws -> Answers {
        func run(_ arguments: [String]) throws -> String {
            let output = try cbir.run(arguments + ["--db", db])
            #expect(output.status == 0, "\(arguments): \(output.standardError)")
            return output.standardOutput
        }
        func json<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
            try JSONDecoder().decode(type, from: Data(try run(arguments + ["--json"]).utf8))
        }
        var answers = Answers()
        for folder in Self.folders {
            // The summary without its timing: "N files in … s (…/s): a indexed, b unchanged, c failed".
            let summary = try run(["index", folder]).split(separator: "\n").first.map(String.init) ?? ""
            answers.indexing.append(String(summary[(summary.range(of: "): ")?.upperBound ?? summary.startIndex)...]))
        }
        answers.stats = try run(["stats", "--json"])
        answers.similar = try json([Similar].self, ["similar"] + Self.similarQueries + ["--top", "4"]).map(\.results)
        for words in ["suit", "shirt tie", "vehicle"] {
            answers.words.append(try json(Words.self, ["search", words, "--top", "5"]))
        }
        answers.copies = Set(try json([Group].self, ["duplicates"]).map(Self.members))
        answers.shots = Set(try json([Group].self, ["duplicates", "--similar"]).map(Self.members))
        for (probe, face) in [("test/obama_and_biden.jpg", 2), ("test/kit_with_rose.jpg", 1)] {
            answers.query.append(
                try json(
                    Query.self,
                    ["query", SharedData.root + "/wild-photos/" + probe, "--face", "\(face)", "--top", "5"]))
        }
        try await served(db, by: cbir, into: &answers)
        return answers
    }

    /// What `cbir serve` on the catalog answers: every person's faces, similar photos and other shots.
    func served(_ db: String, by cbir: CommandRunner, into answers: inout Answers) async throws {
        let port = Int.random(in: 20000..<40000)
        let server = Process()
        server.executableURL = cbir.executable
        server.arguments = ["serve", "--db", db, "--port", String(port), "--read-only"]
        server.environment = ProcessInfo.processInfo.environment.merging(TestPostgres.environment) { $1 }
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let base = "http://127.0.0.1:\(port)/api/"
        let stats = try #require(URL(string: base + "stats"))
        let answered = try await FirstAnswer.wait(
            while: { server.isRunning }, { (try? await URLSession.shared.data(from: stats)) != nil })
        guard answered else { throw URLError(.cannotConnectToHost) }
        func get<T: Decodable>(_ type: T.Type, _ path: String) async throws -> T {
            let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: base + path)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path)")
            return try JSONDecoder().decode(type, from: data)
        }
        /// Every item of a paged listing, the answer itself or a part of it.
        func all<Answer: Decodable, T>(_ path: String, _ type: Answer.Type, _ part: KeyPath<Answer, Listing<T>>)
            async throws -> [T]
        {
            var items: [T] = []
            for page in 1...1000 {
                let listing = try await get(Answer.self, path + (path.contains("?") ? "&" : "?") + "page=\(page)")[
                    keyPath: part]
                items += listing.items
                if listing.items.isEmpty || items.count >= listing.total { break }
            }
            return items
        }
        for person in try await all("people", Listing<Person>.self, \.self) {
            let faces = try await all("people/\(person.id)", PersonFaces.self, \.faces)
            answers.people.insert(faces.map { "\($0.path) \($0.x) \($0.y)" }.sorted())
        }
        let photos = Dictionary(try await all("photos", Listing<Photo>.self, \.self).map { ($0.path, $0.id) }) {
            first, _ in first
        }
        for query in Self.similarQueries.prefix(3) {
            let id = try #require(photos[query])
            answers.servedSimilar.append(
                [Result(path: query, distance: 0)]
                    + (try await get(ServedSimilar.self, "photos/\(id)/similar?top=3")).photos)
        }
        answers.servedShots = Set(
            try await all("duplicates?similar=true", ServedGroups.self, \.groups).map(Self.members))
    }

    struct Listing<Item: Decodable>: Decodable {
        let items: [Item]
        let total: Int
    }
    struct Person: Decodable { let id: Int64 }
    struct Face: Decodable {
        let path: String
        let x, y: Int
    }
    struct Photo: Decodable {
        let id: Int64
        let path: String
    }
    struct ServedSimilar: Decodable { let photos: [Result] }
    struct ServedGroups: Decodable { let groups: Listing<Group> }
    /// A person's detail: its faces, paged.
    struct PersonFaces: Decodable { let faces: Listing<Face> }

    /// A group as its best photo then the others' paths in order.
    static func members(_ group: Group) -> [String] {
        [group.best] + group.photos.map(\.path).filter { $0 != group.best }.sorted()
    }

    /// Whether two rankings agree: the same distances rank by rank within `tolerance`, and each path found in both
    /// at distances within twice that; a path in one only lies within `tolerance` of the other's last (a near tie
    /// at the cut).
    static func alike(_ one: [Result], _ other: [Result], within tolerance: Float) -> Bool {
        guard one.count == other.count else { return false }
        let distances = Dictionary(other.map { ($0.path, $0.distance) }) { first, _ in first }
        return zip(one, other).allSatisfy { abs($0.distance - $1.distance) <= tolerance }
            && one.allSatisfy { result in
                distances[result.path].map { abs($0 - result.distance) <= 2 * tolerance }
                    ?? (abs(result.distance - (other.last?.distance ?? 0)) <= tolerance)
            }
    }
}
