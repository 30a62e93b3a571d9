import BenchmarkSupport
import Foundation
import GRDB
import TestSupport
import Testing

/// Writer commands from other processes while `cbir index` runs: the database stays sound and ends as the
/// same work done one command at a time would leave it.
///
/// Each run starts from wild-photos/train indexed, then indexes ORL (about 400 photos) in one process
/// while 20 rounds of one or two writer commands (label, label --clear, labels --import, remove, people
/// name, merge, move, split, hide) run at random moments from other processes, one after another. The
/// same commands are then replayed on a copy of the start, after the ORL index, one at a time. The two
/// orders give the same result because ORL's faces and train's never group into one person: every ORL
/// face lies more than 0.62 from every train face, beyond clustering's 0.55, so indexing ORL and changing
/// train's people commute. Every command must print the same and exit the same in both runs (a label
/// or removal reported done is there), and both databases must hold the same images, faces, embeddings,
/// descriptors, names and people, up to row ids. On SQLite and on PostgreSQL: the start is made in a SQLite
/// file and copied into each catalog (`cbir copy`, keys and all), and a PostgreSQL catalog's contents are read
/// from a copy of it back into a file.
@Suite(.serialized, .needs(.wildPhotos, .orl)) struct ConcurrentWritersTests {
    static let train = SharedData.root + "/wild-photos/train"
    static let orl = SharedData.root + "/orl"
    static let names = ["Ann", "Bo", "Cy Young"]
    let cbir: CommandRunner
    let folder: String

    init() throws {
        cbir = try CommandRunner(product: "cbir")
        folder = NSTemporaryDirectory() + "cbir-concurrent-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    @Test(arguments: TestStore.allCases) func writersDuringIndexingLoseNothing(store: TestStore) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let base = folder + "/base.sqlite"
        let indexed = try cbir.run(["index", Self.train, "--db", base, "--device", "cpu"])
        try #require(indexed.status == 0, "\(indexed.standardError)")
        let concurrent = try copy(base, to: store, as: "concurrent"), serial = try copy(base, to: store, as: "serial")
        let start = try Start(base)
        let rounds = try (0..<20).map { round in
            try (0..<Int.random(in: 1...2, using: &generator)).map { step in
                try command(start, labelsFile: "\(folder)/labels-\(round)-\(step).json", using: &generator)
            }
        }

        // Concurrently: the long index in one process, the rounds from others at random moments.
        let index = Process()
        index.executableURL = cbir.executable
        index.arguments = ["index", Self.orl, "--db", concurrent, "--device", "cpu"]
        let indexOutput = Pipe()
        index.standardOutput = indexOutput
        index.standardError = indexOutput
        try index.run()
        usleep(UInt32.random(in: 300_000...1_000_000, using: &generator))
        let whileIndexing = Commands(cbir, db: concurrent, start: start)
        var concurrentResults: [Result] = [], duringIndex = 0
        for round in rounds {
            usleep(UInt32.random(in: 0...400_000, using: &generator))
            for arguments in round {
                concurrentResults.append(try whileIndexing.run(arguments))
                if index.isRunning { duringIndex += 1 }
            }
        }
        let indexLog = String(decoding: indexOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        index.waitUntilExit()
        #expect(index.terminationStatus == 0, "seed \(seed): \(indexLog)")
        #expect(duringIndex >= 10, "seed \(seed): only \(duringIndex) commands finished while the index ran")

        // One command at a time.
        #expect(try cbir.run(["index", Self.orl, "--db", serial, "--device", "cpu"]).status == 0)
        let oneAtATime = Commands(cbir, db: serial, start: start)
        let serialResults = try rounds.joined().map(oneAtATime.run)

        for (arguments, (concurrentResult, serialResult)) in zip(rounds.joined(), zip(concurrentResults, serialResults))
        {
            #expect(
                concurrentResult == serialResult,
                """
                seed \(seed): \(arguments.joined(separator: " ")) printed \(concurrentResult) while indexing, \
                \(serialResult) alone
                """
            )
        }
        if store == .sqlite {
            let integrity = try DatabaseQueue(path: concurrent).read { db in
                try String.fetchAll(db, sql: "PRAGMA integrity_check")
            }
            #expect(integrity == ["ok"], "seed \(seed): \(integrity.prefix(5))")
        }
        let check = try cbir.run(["check", "--db", concurrent])
        #expect(
            check.status == 0 && check.standardOutput.contains("sound"),
            "seed \(seed): \(check.standardOutput) \(check.standardError)")
        let (stored, storedAlone) = (
            try CatalogContents.lines(of: concurrent, cbir: cbir, in: folder),
            try CatalogContents.lines(of: serial, cbir: cbir, in: folder)
        )
        #expect(
            stored.count >= 392 && stored == storedAlone,
            "seed \(seed): \(CatalogContents.difference(stored, storedAlone))")
        #expect(concurrentResults.contains { $0.status == 0 }, "seed \(seed): no command succeeded")
    }

    /// A catalog on `store` that starts as the SQLite file `base`: a copy of the file, or of its rows.
    func copy(_ base: String, to store: TestStore, as name: String) throws -> String {
        if store == .sqlite {
            let db = folder + "/\(name).sqlite"
            try FileManager.default.copyItem(atPath: base, toPath: db)
            return db
        }
        let db = try store.catalog(in: folder, name: name)
        let copied = try cbir.run(["copy", "--from", base, "--to", db])
        try #require(copied.status == 0, "\(copied.standardError)")
        return db
    }

    /// What the starting database holds that commands can name.
    struct Start {
        let photos: [String]
        let faces: [(id: Int64, path: String, x: Int, y: Int, width: Int, height: Int)]
        let people: [Int64]

        init(_ path: String) throws {
            (photos, faces, people) = try DatabaseQueue(path: path).read { db in
                (
                    try String.fetchAll(db, sql: "SELECT path FROM images ORDER BY path"),
                    try Row.fetchAll(
                        db,
                        sql:
                            """
                            SELECT faces.id, path, x, y, faces.width, faces.height FROM faces JOIN images ON \
                            images.id = image_id
                            """
                    )
                    .map { ($0[0], $0[1], $0[2], $0[3], $0[4], $0[5]) },
                    try Int64.fetchAll(db, sql: "SELECT id FROM persons ORDER BY id")
                )
            }
        }
    }

    /// A random writer command on the starting database's photos, faces and people (some of which will be
    /// refused by then: a removed photo, a merged person); a labels file it imports is written now.
    func command(_ start: Start, labelsFile: String, using generator: inout SeededGenerator) throws -> [String] {
        let photo = start.photos.randomElement(using: &generator) ?? ""
        let face = String(start.faces.randomElement(using: &generator)?.id ?? 0)
        let name = Self.names.randomElement(using: &generator) ?? ""
        func person() -> String {
            Bool.random(using: &generator)
                ? String(start.people.randomElement(using: &generator) ?? 0)
                : Self.names.randomElement(using: &generator) ?? ""
        }
        switch Int.random(in: 0..<10, using: &generator) {
        case 0, 1: return ["label", photo, name]
        case 2: return ["label", face, "--clear"]
        case 3: return ["remove", photo]
        case 4:
            let labels = start.faces.shuffled(using: &generator).prefix(Int.random(in: 1...3, using: &generator)).map {
                face in
                Label(
                    path: face.path, x: face.x, y: face.y, width: face.width, height: face.height,
                    label: Self.names.randomElement(using: &generator) ?? "")
            }
            try JSONEncoder().encode(labels).write(to: URL(fileURLWithPath: labelsFile))
            return ["labels", "--import", labelsFile]
        case 5: return ["people", "name", person(), name]
        case 6: return ["people", "merge", person(), person()]
        case 7: return ["people", "move", face, person()]
        case 8: return ["people", "split", face]
        default: return ["people", "hide", person()] + (Bool.random(using: &generator) ? ["--undo"] : [])
        }
    }

    /// A label as `cbir labels` writes it.
    struct Label: Encodable {
        let path: String, x: Int, y: Int, width: Int, height: Int, label: String
    }

    /// A command's exit status and output.
    struct Result: Equatable, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "\(status): \(output)" }
    }

    /// Runs commands on one database and tells their results, the ids of people made after the start
    /// renamed `new1`, `new2`… in the order they are first printed: those ids depend on whether ORL's
    /// people were made before or after.
    final class Commands {
        let cbir: CommandRunner, db: String, start: Start
        var newPeople: [Substring: Int] = [:]

        init(_ cbir: CommandRunner, db: String, start: Start) {
            (self.cbir, self.db, self.start) = (cbir, db, start)
        }

        func run(_ arguments: [String]) throws -> Result {
            let output = try cbir.run(arguments + ["--db", db])
            let text = (output.standardOutput + output.standardError).replacingOccurrences(of: db, with: "DB")
                .replacing(/merge (\d+) (\d+)/) { match in "merge \(renamed(match.1)) \(renamed(match.2))" }
                .replacing(/person (\d+)/) { match in "person \(renamed(match.1))" }
            return Result(status: output.status, output: text)
        }

        func renamed(_ id: Substring) -> String {
            guard let number = Int64(id), !start.people.contains(number) else { return String(id) }
            if newPeople[id] == nil { newPeople[id] = newPeople.count + 1 }
            return "new\(newPeople[id] ?? 0)"
        }
    }
}
