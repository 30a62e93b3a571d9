import BenchmarkSupport
import Catalog
import FaceRecognition
import Foundation
import GRDB
import ImageKernels
import TestSupport
import Testing

/// The People API on a catalog built without any model, on each store: three people of three photos each,
/// their faces' embeddings around three directions. Clustering finds them; naming, merging, splitting, hiding,
/// labels and the photos of a person do what they say; a read-only catalog reads them and refuses to write.
@Suite struct CatalogPeopleTests {
    let folder: String
    /// The catalog's file or URL.
    let location: String
    let catalog: Catalog
    /// Face ids by person (0, 1, 2), in photo order.
    let faces: [[Int64]]

    /// The three people's photos and faces, written into a SQLite file and copied from it to `store`.
    init(on store: TestStore) async throws {
        folder = NSTemporaryDirectory() + "catalog-people-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = try Catalog(path: folder + "/start.sqlite")
        var generator = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        let directions = (0..<3).map { _ in
            Self.unit((0..<128).map { _ in Float.random(in: -1...1, using: &generator) })
        }
        var embeddings: [(person: Int, photo: Int, values: [Float])] = []
        for person in 0..<3 {
            for photo in 0..<3 {
                let noise = (0..<128).map { _ in Float.random(in: -0.005...0.005, using: &generator) }
                embeddings.append((person, photo, Self.unit(zip(directions[person], noise).map { $0 + $1 })))
            }
        }
        faces = try await file.write { [embeddings] db in
            var ids: [[Int64]] = [[], [], []]
            for (person, photo, values) in embeddings {
                try db.execute(
                    sql:
                        """
                        INSERT INTO images (path, size, modified, hash, width, height, status) VALUES (?, 1, 0, \
                        'h', 640, 480, 'indexed')
                        """,
                    arguments: ["/photos/person\(person)/\(photo).jpg"])
                try db.execute(
                    sql: """
                        INSERT INTO faces (image_id, x, y, width, height, angle, neighbours, thumbnail) VALUES (?, \
                        10, 20, 100 + ?, 100, 0, 3, x'')
                        """, arguments: [db.lastInsertedRowID, photo])
                let face = db.lastInsertedRowID
                try db.execute(
                    sql: "INSERT INTO face_embeddings (face_id, embedding) VALUES (?, ?)",
                    arguments: [
                        face,
                        Data(
                            values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
                        ),
                    ])
                ids[person].append(face)
            }
            return ids
        }
        location = try store.catalog(in: folder, name: "people")
        _ = try CatalogCopy.copy(from: folder + "/start.sqlite", to: location)
        catalog = try Catalog(path: location)
    }

    /// Of length 1: one person's faces lie about 0.06 apart, two people's about 1.4 (random directions in
    /// 128 dimensions are nearly orthogonal); clustering's threshold is 0.55.
    static func unit(_ values: [Float]) -> [Float] {
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / norm }
    }

    /// The person of each face, by face id.
    func personOfFaces() throws -> [Int64: Int64] {
        var people: [Int64: Int64] = [:]
        for photo in try catalog.photos(offset: 0, limit: 100).items {
            for face in try catalog.faces(inImage: photo.id) { people[face.id] = face.person }
        }
        return people
    }

    @Test(arguments: TestStore.allCases)
    static func clusteringNamingMergingSplittingHiding(store: TestStore) async throws {
        let fixture = try await CatalogPeopleTests(on: store)
        try await fixture.clusterNameMergeSplitAndHide()
    }

    func clusterNameMergeSplitAndHide() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = RenderContext(device: .cpu)
        #expect(try catalog.people().isEmpty)
        let summary = try await catalog.clusterPeople(context: context)
        #expect(summary.faces == 9 && summary.newPeople == 3 && summary.people == 3, "\(summary)")
        let people = try catalog.people(), person = try personOfFaces()
        #expect(people.count == 3 && people.allSatisfy { $0.faces == 3 && $0.name == nil && !$0.hidden })
        for ids in faces { #expect(Set(ids.compactMap { person[$0] }).count == 1, "each person's faces in one person") }
        let (ada, bo) = (try #require(person[faces[0][0]]), try #require(person[faces[1][0]]))
        #expect(
            try catalog.people().first { $0.id == ada }?.representative == faces[0][2], "the largest face represents")

        // Names: stored trimmed, found by any spelling, unique.
        #expect(try await catalog.name(person: ada, as: "  Ada Lovelace ") == "Ada Lovelace")
        #expect(try catalog.person("Ada Lovelace").id == ada && catalog.person("\(ada)").name == "Ada Lovelace")
        await #expect(throws: CatalogError.self) { try await catalog.name(person: bo, as: "Ada Lovelace") }
        #expect(try catalog.photos(of: ada) == (0..<3).map { "/photos/person0/\($0).jpg" })

        // Merging: the kept person takes the other's name when it has none; the other goes.
        try await catalog.merge(person: ada, into: bo)
        let merged = try catalog.person("\(bo)")
        #expect(try merged.name == "Ada Lovelace" && merged.faces == 6 && !catalog.people().contains { $0.id == ada })
        await #expect(throws: CatalogError.self) { try await catalog.merge(person: bo, into: bo) }

        // Splitting two faces out: a new person, by hand, that reclustering keeps.
        let split = try await catalog.split(faces: Array(faces[0].prefix(2)))
        #expect(try catalog.person("\(split)").faces == 2 && catalog.person("\(bo)").faces == 4)
        _ = try await catalog.clusterPeople(recluster: true, context: context)
        #expect(try personOfFaces()[faces[0][0]] == split && personOfFaces()[faces[0][1]] == split)

        // Labels name faces through people; a label moves a face to the person of that name.
        #expect(try await catalog.label(face: faces[2][0], as: "Cy") == "Cy")
        #expect(try catalog.person("Cy").faces == 1)
        let labels = try catalog.labels().labels
        #expect(Set(labels.map(\.label)) == ["Ada Lovelace", "Cy"] && labels.count == 5, "\(labels)")

        // Hiding keeps the person and its faces, flagged.
        try await catalog.hide(person: split)
        #expect(try catalog.people().first { $0.id == split }?.hidden == true)
        try await catalog.hide(person: split, false)
        #expect(try catalog.people().first { $0.id == split }?.hidden == false)

        // Unassigning by hand: the face leaves every person for good, and the emptied unnamed person goes.
        try await catalog.assign(faces: Array(faces[0].prefix(2)), to: nil)
        #expect(try !catalog.people().contains { $0.id == split } && personOfFaces()[faces[0][0]] == nil)
        _ = try await catalog.clusterPeople(recluster: true, context: context)
        #expect(try personOfFaces()[faces[0][0]] == nil)
    }

    /// Suggestions: a person's faces split over two people and one face that clustering left alone; the first
    /// person's suggestions are the other and the face, not the other people's faces; once merged and
    /// assigned, nothing is left to suggest.
    @Test(arguments: TestStore.allCases)
    static func suggestions(store: TestStore) async throws {
        try await CatalogPeopleTests(on: store).suggestAPersonsOtherFaces()
    }

    func suggestAPersonsOtherFaces() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = RenderContext(device: .cpu)
        _ = try await catalog.clusterPeople(clustering: FaceClustering(minimumClusterSize: 4), context: context)
        #expect(try catalog.people().isEmpty, "every group below the minimum size: no one")
        let (first, second) = (
            try await catalog.split(faces: [faces[0][0]]), try await catalog.split(faces: [faces[0][1]])
        )
        let suggested = try catalog.suggestions(for: first, context: context)
        #expect(suggested.people.map(\.person.id) == [second], "\(suggested)")
        #expect(suggested.faces.map(\.id) == [faces[0][2]] && suggested.faces.first?.path == "/photos/person0/2.jpg")
        #expect(suggested.people.allSatisfy { $0.distance < 0.1 } && suggested.faces.allSatisfy { $0.distance < 0.1 })
        try await catalog.merge(person: second, into: first)
        try await catalog.assign(faces: [faces[0][2]], to: first)
        let left = try catalog.suggestions(for: first, context: context)
        #expect(left.people.isEmpty && left.faces.isEmpty, "\(left)")
        #expect(throws: CatalogError.self) { try catalog.suggestions(for: 999, context: context) }
    }

    /// A read-only catalog (which, like any, loads no model) answers; writing to it is refused with the
    /// read-only error. (`ReliabilityTests.readingCommandsNeedNoModels` runs the commands without models.)
    @Test(arguments: TestStore.allCases)
    static func readOnly(store: TestStore) async throws {
        try await CatalogPeopleTests(on: store).readWithoutWriting()
    }

    func readWithoutWriting() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await catalog.clusterPeople(context: RenderContext(device: .cpu))
        let reader = try Catalog(path: location, access: .readOnly)
        #expect(try reader.statistics().images == 9 && reader.people().count == 3)
        #expect(try reader.photos(of: try #require(reader.people().first?.id)).count == 3)
        await #expect(throws: CatalogError.self) { try await reader.name(person: 1, as: "Ada") }
    }
}
