import FaceRecognition
import Foundation
import ImageKernels

/// A person: faces grouped by clustering or by hand, with an optional name (a face's name is its person's).
public struct Person: Sendable, Codable, Equatable {
    public let id: Int64
    public let name: String?
    public let hidden: Bool
    /// Faces in the person, and the photos they are in.
    public let faces: Int
    public let photos: Int
    /// Its largest face (the clearest to show), if it has any.
    public let representative: Int64?
}

/// What a clustering run did.
public struct ClusteringSummary: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Faces clustered (faces with embeddings, those taken out of every person by hand left aside).
    public let faces: Int
    /// Faces whose person changed.
    public let changed: Int
    /// People made.
    public let newPeople: Int
    /// People with faces afterwards.
    public let people: Int

    public var description: String {
        """
        \(counted(faces, "face")) grouped: \(changed) changed person, \
        \(counted(newPeople, "new person", "new people")), \
        \(counted(people, "person", "people")) in all
        """
    }
}

extension Catalog {
    /// Groups faces into people by their embeddings (`FaceClustering`). By default incrementally: faces
    /// that clustering has not seen join an existing person or start new ones, and existing people never
    /// merge. `recluster` regroups every face in no person or in an unnamed one, around the faces assigned
    /// by hand and the named people (who keep their faces), each old unnamed person kept (its id) for the
    /// new cluster holding most of its faces. Faces assigned by hand never change. The
    /// faces are read, clustered, and the result written in one transaction: an interrupted run leaves the
    /// previous assignment whole. Clusters on `context` (by default the device that searches fastest here).
    public func clusterPeople(
        recluster: Bool = false, clustering: FaceClustering = FaceClustering(),
        context: RenderContext? = nil
    ) throws(CatalogError) -> ClusteringSummary {
        let faces = try clusteredFaces()
        var start = FaceClustering.Start(), changed: [Int] = []
        for index in faces.ids.indices {
            let assignment = faces.assignments[index], person = faces.people[index]
            let kept = !recluster || assignment == .manual || faces.named[index]
            let group = kept ? person.map(Int.init) : nil
            start.groups.append(group)
            if let group { start.anchored.insert(group) }
            if recluster || assignment == nil { changed.append(index) }
        }
        start.changed = changed
        let ids = faces.ids, people = faces.people
        let manual = faces.assignments.map { $0 == .manual }, unseen = faces.assignments.map { $0 == nil }
        guard !changed.isEmpty else {
            return ClusteringSummary(
                faces: ids.count, changed: 0, newPeople: 0,
                people: try readingStatement { connection in try Self.peopleCount(connection) })
        }
        let labels: [Int?]
        do {
            labels = try clustering.clusters(
                of: faces.embeddings, length: FaceEmbedder.length, start: start,
                context: try RenderContext.orDefault(context, for: .search))
        } catch {
            throw .processing("clustering faces: \(error)")
        }
        // Each cluster's person: its anchored group's, else (reclustering) the old person most of its faces
        // had and no cluster before it took, else a new one.
        var members: [Int: [Int]] = [:]
        for (index, label) in labels.enumerated() { if let label { members[label, default: []].append(index) } }
        var personOfCluster: [Int: Int64] = [:], taken = Set<Int64>()
        for cluster in members.keys.sorted() {
            let faces = members[cluster] ?? []
            if let anchored = faces.lazy.compactMap({ start.groups[$0] }).first(where: { start.anchored.contains($0) })
            {
                personOfCluster[cluster] = Int64(anchored)
                taken.insert(Int64(anchored))
            } else if recluster {
                var votes: [Int64: Int] = [:]
                for face in faces {
                    if let person = people[face], !taken.contains(person) { votes[person, default: 0] += 1 }
                }
                if let (person, _) = votes.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) {
                    personOfCluster[cluster] = person
                    taken.insert(person)
                }
            }
        }
        let newClusters = members.keys.sorted().filter { personOfCluster[$0] == nil }
        return try writing { [personOfCluster, manual, people, unseen, ids] connection in
            var personOfCluster = personOfCluster
            for cluster in newClusters { personOfCluster[cluster] = try Self.newPerson(connection) }
            var changedFaces = 0
            for (index, label) in labels.enumerated() where !manual[index] {
                let person = label.flatMap { personOfCluster[$0] }
                guard person != people[index] || unseen[index] else { continue }
                try connection.execute(
                    """
                    UPDATE faces SET person_id = ?, assignment = ? WHERE id = ? AND \
                    (assignment IS NULL OR assignment <> 'manual')
                    """,
                    [
                        person.map(StoreValue.integer) ?? .null,
                        .text((person == nil ? FaceAssignment.none : .automatic).rawValue), .integer(ids[index]),
                    ])
                if person != people[index] { changedFaces += 1 }
            }
            try Self.dropEmptyPeople(connection)
            return ClusteringSummary(
                faces: ids.count, changed: changedFaces, newPeople: newClusters.count,
                people: try Self.peopleCount(connection))
        }
    }

    /// The faces clustering groups, in id order: every face with an embedding but those taken out of every
    /// person by hand.
    struct ClusteredFaces {
        var ids: [Int64] = []
        /// Their embeddings, one after another.
        var embeddings: [Float] = []
        var people: [Int64?] = []
        var assignments: [FaceAssignment?] = []
        /// Whether each face's person has a name.
        var named: [Bool] = []
    }

    nonisolated func clusteredFaces() throws(CatalogError) -> ClusteredFaces {
        let rows = try reading { connection in
            try connection.rows(
                """
                SELECT faces.id, embedding, person_id, assignment, name IS NOT NULL AS named FROM faces
                JOIN \(FaceStore.embeddingsTable) ON face_id = faces.id LEFT JOIN persons ON persons.id = \
                person_id ORDER BY faces.id
                """, [])
        }
        var faces = ClusteredFaces()
        for row in rows {
            let assignment = (try row.get("assignment") as String?).flatMap(FaceAssignment.init),
                person: Int64? = try row.get("person_id")
            if assignment == .manual && person == nil { continue }
            let id: Int64 = try row.get("id")
            faces.ids.append(id)
            faces.embeddings += try FaceRecord.embedding(face: id, try row.get("embedding") as [Float])
            faces.people.append(person)
            faces.assignments.append(assignment)
            faces.named.append(try row.get("named"))
        }
        return faces
    }

    /// Every person with faces, or a name, most faces first.
    public nonisolated func people() throws(CatalogError) -> [Person] {
        try readingStatement { connection in try Self.people(connection) }
    }

    /// A tag that changes whenever a face or a person is added, changed or removed (by any process): what
    /// a list of people kept in memory is kept by.
    public nonisolated func peopleTag() throws(CatalogError) -> Data {
        try readingStatement { connection in try TableTags.tag(of: [FaceStore.table, "persons"], connection) }
    }

    /// The person a user means: by id (a number) or by name (spelt as ``PersonName`` stores it or not).
    public nonisolated func person(_ reference: String) throws(CatalogError) -> Person {
        let found = try reading { connection in
            try (Int64(reference) ?? Self.person(named: reference, connection)).map {
                try Self.people(connection, where: "persons.id = ?", .integer($0))
            } ?? []
        }
        guard let person = found.first else { throw .notFound("person \(reference)") }
        return person
    }

    /// People with their face counts and representatives, those matching `condition` (on `persons`).
    static func people(
        _ connection: any StoreConnection, where condition: String = "1 = 1", _ argument: StoreValue? = nil
    ) throws -> [Person] {
        try connection.rows(
            """
            SELECT persons.id, name, hidden, COUNT(faces.id) AS face_count,
                   COUNT(DISTINCT faces.image_id) AS photo_count,
                   (SELECT id FROM faces WHERE person_id = persons.id ORDER BY width * height DESC, id LIMIT 1) \
                   AS representative
            FROM persons LEFT JOIN faces ON faces.person_id = persons.id WHERE \(condition)
            GROUP BY persons.id ORDER BY face_count DESC, persons.id
            """, argument.map { [$0] } ?? []
        )
        .map { row throws(CatalogError) in
            Person(
                id: try row.get(0), name: try row.get(1), hidden: try row.get(2), faces: try row.get(3),
                photos: try row.get(4), representative: try row.get(5))
        }
    }

    /// The paths of the photos a person is in, in path order.
    public nonisolated func photos(of person: Int64) throws(CatalogError) -> [String] {
        try readingStatement { connection in
            try connection.rows(
                """
                SELECT DISTINCT path FROM faces JOIN images ON images.id = image_id WHERE person_id = ? ORDER BY path
                """, [.integer(person)]
            ).map { row throws(CatalogError) in localPath(try row.get(0)) }
        }
    }

    /// A person's faces with their photos' paths, in path order.
    public nonisolated func faces(of person: Int64) throws(CatalogError) -> [(path: String, face: FaceRecord)] {
        try readingStatement { connection in
            try connection.rows(
                """
                SELECT \(FaceRecord.columns), path FROM faces JOIN images ON images.id = image_id WHERE person_id = ? \
                ORDER BY path, x
                """, [.integer(person)]
            ).map { row throws(CatalogError) in (localPath(try row.get("path")), try FaceRecord(row: row)) }
        }
    }

    /// Names a person, or clears its name with nil, and returns the name as stored (``PersonName``). Two
    /// people cannot share a name: merge them instead.
    @discardableResult
    public func name(person: Int64, as name: String?) throws(CatalogError) -> String? {
        let name = try name.map(PersonName.stored)
        try writing { connection in
            try Self.requirePerson(person, connection)
            if let name, let other = try Self.person(named: name, connection), other != person {
                throw CatalogError.invalidQuery(
                    "person \(other) is already called \(name); merge them with `cbir people merge \(person) \(other)`")
            }
            try connection.execute(
                "UPDATE persons SET name = ? WHERE id = ?", [name.map(StoreValue.text) ?? .null, .integer(person)])
        }
        return name
    }

    /// Hides a person from the lists (strangers, say), or shows it again; its faces stay as they are.
    public func hide(person: Int64, _ hidden: Bool = true) throws(CatalogError) {
        try writing { connection in
            try Self.requirePerson(person, connection)
            try connection.execute("UPDATE persons SET hidden = ? WHERE id = ?", [.boolean(hidden), .integer(person)])
        }
    }

    /// Moves every face of `person` into `target` by hand, and forgets `person`; the target keeps its name,
    /// or takes the other's when it has none.
    public func merge(person: Int64, into target: Int64) throws(CatalogError) {
        guard person != target else { throw .invalidQuery("person \(person) cannot be merged with itself") }
        try writing { connection in
            try Self.requirePerson(person, connection)
            try Self.requirePerson(target, connection)
            let name =
                try connection.rows(
                    "SELECT COALESCE(t.name, p.name) FROM persons t, persons p WHERE t.id = ? AND p.id = ?",
                    [.integer(target), .integer(person)]
                ).first?.values.first ?? .null
            try connection.execute(
                "UPDATE faces SET person_id = ?, assignment = 'manual' WHERE person_id IN (?, ?)",
                [.integer(target), .integer(person), .integer(target)])
            try connection.execute("DELETE FROM persons WHERE id = ?", [.integer(person)])
            try connection.execute("UPDATE persons SET name = ? WHERE id = ?", [name, .integer(target)])
        }
    }

    /// Puts faces into a person by hand (nil: into none); people left with no faces and no name go.
    public func assign(faces: [Int64], to person: Int64?) throws(CatalogError) {
        try writing { connection in
            if let person { try Self.requirePerson(person, connection) }
            try Self.requireFaces(faces, connection)
            try Self.assignByHand(faces, to: person, connection)
        }
    }

    /// Takes faces out of their people into a new person of their own, by hand; returns it.
    public func split(faces: [Int64]) throws(CatalogError) -> Int64 {
        try writing { connection in
            try Self.requireFaces(faces, connection)
            let person = try Self.newPerson(connection)
            try Self.assignByHand(faces, to: person, connection)
            return person
        }
    }

    /// Names a face: puts it by hand into the person of that name (made if there is none), or with nil
    /// takes it out of every person. Returns the name as stored (``PersonName``).
    @discardableResult
    public func label(face: Int64, as name: String?) throws(CatalogError) -> String? {
        let name = try name.map(PersonName.stored)
        try writing { connection in
            try Self.requireFaces([face], connection)
            try Self.assignByHand([face], to: try name.map { try Self.personMade(named: $0, connection) }, connection)
        }
        return name
    }

    /// The person called `name` (in any case), made if there is none.
    static func personMade(named name: String, _ connection: any StoreConnection) throws -> Int64 {
        if let person = try person(named: name, connection) { return person }
        return try connection.rows("INSERT INTO persons (name) VALUES (?) RETURNING id", [.text(name)]).first?.get(0)
            ?? -1
    }

    /// A new person, without a name or faces yet.
    private static func newPerson(_ connection: any StoreConnection) throws -> Int64 {
        try connection.rows("INSERT INTO persons DEFAULT VALUES RETURNING id", []).first?.get(0) ?? -1
    }

    /// The person called `name`, in any case (``PersonName/key(_:)``), if any.
    static func person(named name: String, _ connection: any StoreConnection) throws -> Int64? {
        let key = PersonName.key(name)
        return try connection.rows("SELECT id, name FROM persons WHERE name IS NOT NULL", [])
            .first { row in try PersonName.key(row.get(1)) == key }?.get(0)
    }

    /// Puts faces by hand into a person, or into none; people left with no faces and no name go.
    static func assignByHand(_ faces: [Int64], to person: Int64?, _ connection: any StoreConnection) throws {
        try setHandAssignment(faces, to: person, connection)
        try dropEmptyPeople(connection)
    }

    private static func setHandAssignment(_ faces: [Int64], to person: Int64?, _ connection: any StoreConnection)
        throws
    {
        try connection.execute(
            "UPDATE faces SET person_id = ?, assignment = 'manual' WHERE id IN (\(RowBatches.list(faces)))",
            [person.map(StoreValue.integer) ?? .null])
    }

    /// The boxes and people of the faces assigned by hand in the photo at `path`: read before the photo is
    /// indexed anew, so that ``restoreHandAssignments(_:at:_:)`` can give them to its new faces.
    static func handAssignments(at path: String, _ connection: any StoreConnection) throws
        -> [(box: FaceBox, person: Int64?)]
    {
        try connection.rows(
            """
            SELECT x, y, faces.width, faces.height, person_id FROM faces JOIN images ON images.id = image_id
            WHERE path = ? AND assignment = 'manual'
            """, [.text(path)]
        ).map { row throws(CatalogError) in
            ((try row.get(0), try row.get(1), try row.get(2), try row.get(3)), try row.get(4))
        }
    }

    /// Assigns the photo's new faces by hand as its old faces with the same boxes (overlapping by at least
    /// half) were; then people left with no faces and no name go.
    static func restoreHandAssignments(
        _ assignments: [(box: FaceBox, person: Int64?)], at path: String, _ connection: any StoreConnection
    ) throws {
        guard !assignments.isEmpty else { return }
        var facesByPerson: [Int64?: [Int64]] = [:]
        for (box, person) in assignments {
            if let face = try face(at: path, overlapping: box, connection) {
                facesByPerson[person, default: []].append(face)
            }
        }
        for (person, faces) in facesByPerson { try setHandAssignment(faces, to: person, connection) }
        try dropEmptyPeople(connection)
    }

    private static func requirePerson(_ person: Int64, _ connection: any StoreConnection) throws {
        guard try connection.integer("SELECT COUNT(*) FROM persons WHERE id = ?", [.integer(person)]) != 0 else {
            throw CatalogError.notFound("person \(person)")
        }
    }

    private static func requireFaces(_ faces: [Int64], _ connection: any StoreConnection) throws {
        guard !faces.isEmpty else { throw CatalogError.invalidQuery("no faces given") }
        let found = Set(
            try connection.rows("SELECT id FROM faces WHERE id IN (\(RowBatches.list(faces)))", []).map {
                row throws(CatalogError) in try row.get(0) as Int64
            })
        if let missing = faces.first(where: { !found.contains($0) }) { throw CatalogError.notFound("face \(missing)") }
    }

    /// Forgets people with no faces and no name: what clustering or moving faces left behind.
    static func dropEmptyPeople(_ connection: any StoreConnection) throws {
        try connection.execute(
            """
            DELETE FROM persons WHERE name IS NULL AND NOT EXISTS (SELECT 1 FROM faces WHERE person_id = persons.id)
            """, [])
    }

    static func peopleCount(_ connection: any StoreConnection) throws -> Int {
        Int(try connection.integer("SELECT COUNT(DISTINCT person_id) FROM faces") ?? 0)
    }
}
