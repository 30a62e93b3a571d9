import BenchmarkSupport
import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// People end to end through `cbir`, on the wild photos: indexing groups faces into people, new photos' faces
/// join them, and changes by hand (name, merge, move, split, unassign, label) survive reclustering.
@Suite(.serialized, .needs(.wildPhotos)) struct PeopleTests {
    static let photos = SharedData.root + "/wild-photos"

    struct Person: Decodable {
        let id: Int64
        let name: String?
        let faces: Int
        let representative: Int64?
    }
    struct Identified: Decodable { let name: String? }

    /// What `cbir` prints for `arguments`, expecting it to succeed.
    static func succeeding(_ cbir: CommandRunner, _ arguments: [String]) throws -> String {
        let output = try cbir.run(arguments)
        #expect(output.status == 0, "\(arguments): \(output.standardError)")
        return output.standardOutput
    }

    @Test(arguments: TestStore.allCases) func peopleFromIndexingAndByHand(store: TestStore) throws {
        let folder = try DatabaseCommandTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cbir = try CommandRunner(product: "cbir")
        let db = ["--db", try store.catalog(in: folder, name: "people")]
        func run(_ arguments: [String]) throws -> String { try Self.succeeding(cbir, arguments + db) }
        func failure(_ arguments: [String]) throws -> String {
            let output = try cbir.run(arguments + db)
            #expect(output.status != 0, "\(arguments) succeeded")
            return output.standardError
        }
        func people() throws -> [Person] {
            try JSONDecoder().decode([Person].self, from: Data(try run(["people", "--json"]).utf8))
        }
        func photos(_ person: String) throws -> [String] {
            try JSONDecoder().decode([String].self, from: Data(try run(["photos", person, "--json"]).utf8))
        }
        func folders(_ paths: [String]) -> Set<String> { Set(paths.map { FileSystemPath.folder(of: $0) }) }

        // train/: each person's photos in one person; Alex Lacamoire's one photo is a group of one, unassigned.
        #expect(
            try run(["index", Self.photos + "/train", "--device", "cpu"]).contains(
                "people: 9 faces grouped: 8 changed person, 4 new people"))
        var found = try people()
        #expect(found.count == 4 && found.allSatisfy { $0.faces == 2 }, "\(found)")
        for person in found { #expect(folders(try photos("\(person.id)")).count == 1, "person \(person.id)") }
        let personFolders = try found.map { folders(try photos("\($0.id)")) }
        #expect(Set(personFolders.joined()).count == 4, "\(personFolders)")

        // test/: the new faces join the people they show; nothing is regrouped.
        let obama = try #require(
            found.first { try photos("\($0.id)").contains { $0.hasSuffix("/train/obama/obama.jpg") } })
        _ = try run(["index", Self.photos + "/test", "--device", "cpu"])
        #expect(try photos("\(obama.id)").contains { $0.hasSuffix("/test/obama1.jpg") })
        #expect(try photos("\(obama.id)").contains { $0.hasSuffix("/test/obama_and_biden.jpg") })

        // Names, by id then by name; a second person of the same name is refused.
        #expect(try run(["people", "name", "\(obama.id)", "Barack Obama"]) == "person \(obama.id): Barack Obama\n")
        #expect(try photos("Barack Obama") == photos("\(obama.id)"))
        let other = try #require(try people().first { $0.id != obama.id })
        #expect(
            try failure(["people", "name", "\(other.id)", "Barack Obama"]).contains(
                "person \(obama.id) is already called Barack Obama"))
        #expect(
            try failure(["people", "merge", "\(obama.id)", "Barack Obama"]).contains("cannot be merged with itself"))
        #expect(try failure(["people", "merge", "999", "\(obama.id)"]).contains("not found: person 999"))
        #expect(try failure(["people", "move", "x", "\(obama.id)"]).contains("x is not a face id"))
        #expect(try failure(["people", "split", "99999"]).contains("not found: face 99999"))
        // identify names faces through their person.
        let identified = try JSONDecoder().decode(
            Identified.self, from: Data(try run(["identify", Self.photos + "/misc/obama2.jpg", "--json"]).utf8))
        #expect(identified.name == "Barack Obama")

        // Split one face out, unassign another: reclustering keeps both, and the name stays with its people.
        let faces = try #require(try people().first { $0.id == obama.id }).faces
        let representative = try #require(obama.representative)
        let split = try run(["people", "split", "\(representative)"])
        let splitPerson = try #require(split.split(separator: ":").first?.split(separator: " ").last.map(String.init))
        #expect(try run(["people", "cluster", "--recluster"]).contains("faces grouped"))
        found = try people()
        #expect(found.first { "\($0.id)" == splitPerson }?.faces == 1, "\(found)")
        #expect(found.first { $0.name == "Barack Obama" }?.faces == faces - 1, "\(found)")
        #expect(
            try run(["people", "move", "\(representative)", "Barack Obama"]) == "1 face moved to person \(obama.id)\n")
        #expect(try people().first { $0.name == "Barack Obama" }?.faces == faces)
        #expect(try !people().contains { "\($0.id)" == splitPerson }, "the emptied person, unnamed, is gone")
        _ = try run(["people", "unassign", "\(representative)"])
        _ = try run(["people", "cluster", "--recluster"])
        #expect(try people().first { $0.name == "Barack Obama" }?.faces == faces - 1)

        // Merge: the kept person takes the other's name when it has none.
        let biden = try #require(
            try people().first { try photos("\($0.id)").contains { $0.hasSuffix("/train/biden/biden.jpg") } })
        _ = try run(["people", "name", "\(biden.id)", "Joe Biden"])
        let third = try #require(try people().first { $0.name == nil && $0.faces > 0 })
        _ = try run(["people", "merge", "Joe Biden", "\(third.id)"])
        let merged = try people().first { $0.id == third.id }
        #expect(
            merged?.name == "Joe Biden" && merged?.faces == biden.faces + third.faces, "\(String(describing: merged))")

        // Hidden people leave the list, and come back.
        #expect(try run(["people", "hide", "Joe Biden"]) == "person \(third.id): hidden\n")
        #expect(try !people().contains { $0.name == "Joe Biden" })
        let all = try JSONDecoder().decode([Person].self, from: Data(try run(["people", "--all", "--json"]).utf8))
        #expect(all.contains { $0.name == "Joe Biden" })
        _ = try run(["people", "hide", "Joe Biden", "--undo"])
        #expect(try people().contains { $0.name == "Joe Biden" })

        // The sheet: one face per person, captions under each.
        let sheet = folder + "/people.png"
        _ = try run(["people", "--sheet", sheet])
        let picture = try ImageDecoder.decode(contentsOf: sheet)
        #expect(picture.descriptor.width == min(6, try people().filter { $0.faces > 0 }.count) * (128 + 8) + 8)
        // And a person's faces, one cell each.
        _ = try run(["photos", "Joe Biden", "--sheet", sheet])
        let faceSheet = try ImageDecoder.decode(contentsOf: sheet)
        #expect(faceSheet.descriptor.width == min(6, biden.faces + third.faces) * (128 + 8) + 8)
    }

    /// Names are stored trimmed and composed, and found by any spelling of them; an empty, overlong or
    /// multi-line name is refused, and a labels file holding one is refused whole.
    @Test func namesAreTrimmedComposedAndChecked() throws {
        let folder = try DatabaseCommandTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cbir = try CommandRunner(product: "cbir")
        let db = ["--db", folder + "/cbir.sqlite"], photo = Self.photos + "/train/obama/obama.jpg"
        _ = try Self.succeeding(cbir, ["index", Self.photos + "/train/obama", "--device", "cpu"] + db)
        let decomposed = "  Zoe\u{0308} Smith\t", composed = "Zo\u{00EB} Smith"
        #expect(try Self.succeeding(cbir, ["label", photo, decomposed] + db).hasSuffix(": \(composed)\n"))
        #expect(try Self.succeeding(cbir, ["people", "name", "Zoe\u{0308} Smith", "Zoë"] + db).hasSuffix(": Zoë\n"))
        for (name, reason) in [
            ("   ", "empty or only spaces"), ("", "empty or only spaces"),
            (String(repeating: "x", count: 10_240), "more than 100"),
            ("first\nsecond", "line break"),
        ] {
            let refused = try cbir.run(["label", photo, name] + db)
            #expect(
                refused.status == 1 && refused.standardError.contains("not a name")
                    && refused.standardError.contains(reason)
                    && refused.standardError.count < 200, "\(refused.standardError)")
        }
        let box = try #require(
            try DatabaseQueue(path: db[1]).read { db in
                try Row.fetchOne(db, sql: "SELECT x, y, width, height FROM faces")
            })
        let labels = folder + "/labels.json"
        try JSONSerialization.data(
            withJSONObject: ["Ann", " "].map { name in
                [
                    "path": photo, "x": box["x"] as Int, "y": box["y"] as Int, "width": box["width"] as Int,
                    "height": box["height"] as Int, "label": name,
                ]
            }
        ).write(to: URL(fileURLWithPath: labels))
        #expect(
            try cbir.run(["labels", "--import", labels] + db).standardError.contains("not a name: \" \": it is empty"))
        #expect(
            try Self.succeeding(cbir, ["people"] + db).contains("Zoë")
                && !Self.succeeding(cbir, ["people"] + db).contains("Ann"))
    }

    /// Indexing the wild photos a folder at a time (train/, then test/, then misc/: each run's new faces join
    /// the people before them or make new ones) gives the same people as indexing them all at once.
    @Test func incrementalIndexingGivesThePeopleOfOneRun() throws {
        let folder = try DatabaseCommandTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let parts = ["train", "test", "misc"]
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
        for part in parts {
            try FileManager.default.copyItem(atPath: Self.photos + "/" + part, toPath: folder + "/photos/" + part)
        }
        let cbir = try CommandRunner(product: "cbir")
        /// The people of a database: each person's faces as photo and box, and the faces in no person.
        func people(_ database: String) throws -> Set<Set<String>> {
            try DatabaseQueue(path: database).read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT person_id, path, x, y FROM faces JOIN images ON images.id = image_id
                        """)
                let faces = Dictionary(grouping: rows) { ($0["person_id"] as Int64?).map { "\($0)" } ?? "none" }
                return Set(
                    faces.map { person, rows in
                        Set(
                            rows.map {
                                let path = ($0["path"] as String).replacingOccurrences(of: folder, with: "")
                                let face = "\(path) \($0["x"] as Int) \($0["y"] as Int)"
                                return person == "none" ? "in no person: " + face : face
                            })
                    })
            }
        }
        let once = folder + "/once.sqlite", inSteps = folder + "/steps.sqlite"
        _ = try Self.succeeding(cbir, ["index", folder + "/photos", "--no-photos", "--device", "cpu", "--db", once])
        for part in parts {
            _ = try Self.succeeding(
                cbir, ["index", folder + "/photos/" + part, "--no-photos", "--device", "cpu", "--db", inSteps])
        }
        let all = try people(once)
        #expect(all.count >= 5, "\(all)")
        #expect(try people(inSteps) == all)
    }

    /// A photo whose bytes changed is indexed anew: its new faces take the hand assignments of the old faces
    /// with the same boxes, to named people and to unnamed ones alike.
    @Test func handAssignmentsSurviveReindexingAChangedPhoto() throws {
        let folder = try DatabaseCommandTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = folder + "/photos/obama_and_biden.jpg"
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.photos + "/test/obama_and_biden.jpg", toPath: photo)
        let cbir = try CommandRunner(product: "cbir")
        let db = ["--db", folder + "/cbir.sqlite"]
        func run(_ arguments: [String]) throws -> String { try Self.succeeding(cbir, arguments + db) }
        /// The photo's faces left to right: id, person, how assigned.
        func faces() throws -> [(id: Int64, person: Int64?, assignment: String?)] {
            try DatabaseQueue(path: db[1]).read { db in
                try Row.fetchAll(db, sql: "SELECT id, person_id, assignment FROM faces ORDER BY x").map {
                    ($0["id"], $0["person_id"], $0["assignment"])
                }
            }
        }
        _ = try run(["index", folder + "/photos", "--device", "cpu"])
        _ = try run(["label", photo, "First", "--face", "1"])
        _ = try run(["label", photo, "Second", "--face", "2"])
        _ = try run(["label", photo, "Third", "--face", "3"])
        let labelled = try faces()
        try #require(labelled.count == 3)
        _ = try run(["people", "split", "\(labelled[1].id)"])
        let before = try faces()
        #expect(
            before.allSatisfy { $0.assignment == "manual" } && before[0].person == labelled[0].person
                && before[1].person != labelled[1].person)

        let handle = try #require(FileHandle(forWritingAtPath: photo))
        handle.seekToEndOfFile()
        handle.write(Data("bytes after the end of the image".utf8))
        handle.closeFile()
        #expect(try run(["index", folder + "/photos", "--device", "cpu"]).contains("1 indexed"))
        let after = try faces()
        #expect(Set(after.map(\.id)).isDisjoint(with: before.map(\.id)), "the faces were stored anew")
        #expect(
            after.map(\.person) == before.map(\.person) && after.allSatisfy { $0.assignment == "manual" },
            "\(before) → \(after)")
        #expect(try run(["photos", "First", "--json"]).contains("obama_and_biden.jpg"))
    }

    /// Reclustering killed with SIGKILL at random moments leaves either the assignment before it or the one
    /// it makes, whole, and a sound file.
    @Test func killedReclusteringLeavesAWholeAssignment() throws {
        let folder = try DatabaseCommandTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cbir = try CommandRunner(product: "cbir")
        let db = ["--db", folder + "/cbir.sqlite"]
        #expect(try cbir.run(["index", Self.photos, "--device", "cpu"] + db).status == 0)
        /// The people as the sets of their faces, person ids aside.
        func assignment() throws -> Set<Set<Int64>> {
            let rows = try DatabaseQueue(path: db[1]).read { db in
                try Row.fetchAll(db, sql: "SELECT person_id, id FROM faces WHERE person_id IS NOT NULL")
            }
            return Set(
                Dictionary(grouping: rows) { $0["person_id"] as Int64 }.values.map { Set($0.map { $0["id"] as Int64 }) }
            )
        }
        // A tighter threshold makes more, smaller people; the default makes the first ones again.
        let tight = ["people", "cluster", "--recluster", "--threshold", "0.3", "--minimum-size", "1"],
            loose = ["people", "cluster", "--recluster"]
        let before = try assignment()
        #expect(try cbir.run(tight + db).status == 0)
        let after = try assignment()
        #expect(after.count > before.count)
        #expect(try cbir.run(loose + db).status == 0)
        #expect(try assignment() == before)
        var generator = SeededGenerator()
        for _ in 0..<5 {
            let process = Process()
            process.executableURL = cbir.executable
            process.arguments = tight + db
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...400_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let now = try assignment()
            #expect(now == before || now == after, "seed \(generator.seed)")
            #expect(try cbir.run(["check"] + db).status == 0)
            #expect(try cbir.run(loose + db).status == 0)
        }
    }
}
