import FaceRecognition
import Foundation
import GRDB

/// The `faces` table, its descriptors and embeddings tables, and every statement on them: the face
/// indexer's storage. Faces reference their image and the vectors their face (`ON DELETE CASCADE`), so
/// re-indexing or removing a file drops its faces.
public struct FaceStore: Sendable {
    static let table = FaceRecord.databaseTableName

    public init() {}

    static func createTable(_ db: Database) throws {
        try db.create(table: Self.table) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("image_id", .integer).notNull().indexed().references(
                ImageRecord.databaseTableName, onDelete: .cascade)
            t.column("x", .integer).notNull()
            t.column("y", .integer).notNull()
            t.column("width", .integer).notNull()
            t.column("height", .integer).notNull()
            t.column("angle", .double).notNull()
            t.column("left_eye_x", .double)
            t.column("left_eye_y", .double)
            t.column("right_eye_x", .double)
            t.column("right_eye_y", .double)
            t.column("neighbours", .integer).notNull()
            t.column("parameters", .text).notNull()
            t.column("descriptor", .blob).notNull()
            t.column("thumbnail", .blob).notNull()
            t.column("label", .text).indexed()
        }
    }

    /// The embedding column, added in place to databases made before it, and an index of the faces that
    /// have one: counting them then reads the index, not every row's blobs.
    static func addEmbeddings(_ db: Database) throws {
        try db.alter(table: table) { t in t.add(column: "embedding", .blob) }
        try db.execute(sql: "CREATE INDEX faces_with_embeddings ON faces(id) WHERE embedding IS NOT NULL")
    }

    /// The persons table and each face's person and how it got there. Labels become named persons, their
    /// faces assigned by hand; the label column goes (a face's name is its person's).
    static func addPersons(_ db: Database) throws {
        try db.create(table: "persons") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).unique()
            t.column("hidden", .boolean).notNull().defaults(to: false)
        }
        try db.alter(table: table) { t in
            t.add(column: "person_id", .integer).references("persons", onDelete: .setNull)
            t.add(column: "assignment", .text)
        }
        try db.execute(sql: "CREATE INDEX faces_on_person_id ON faces(person_id)")
        try db.execute(
            sql: "INSERT INTO persons (name) SELECT DISTINCT label FROM faces WHERE label IS NOT NULL ORDER BY label")
        try db.execute(
            sql: """
                UPDATE faces SET person_id = (SELECT id FROM persons WHERE name = label), assignment = 'manual' WHERE \
                label IS NOT NULL
                """)
        try db.execute(sql: "DROP INDEX faces_on_label")
        try db.alter(table: table) { t in t.drop(column: "label") }
    }

    /// Embeddings move from a column of `faces`, behind each row's descriptor and thumbnail (reading them
    /// meant reading those), to a table of their own, read in one narrow sweep.
    static func moveEmbeddings(_ db: Database) throws {
        try db.create(table: embeddingsTable) { t in
            t.primaryKey("face_id", .integer).references(table, onDelete: .cascade)
            t.column("embedding", .blob).notNull()
        }
        // Counting and listing the faces with embeddings (every query's change check) read this index, not the rows.
        try db.execute(sql: "CREATE INDEX face_embeddings_ids ON \(embeddingsTable)(face_id)")
        try db.execute(
            sql: "INSERT INTO \(embeddingsTable) SELECT id, embedding FROM faces WHERE embedding IS NOT NULL")
        try db.execute(sql: "DROP INDEX faces_with_embeddings")
        try db.alter(table: table) { t in t.drop(column: "embedding") }
    }

    static let embeddingsTable = "face_embeddings"

    /// Descriptors move from a column of `faces` (64 KB of Float32 each) to a table of their own with their
    /// parameters, in their compact stored form (``FaceDescriptor/encoded()``, about 6 KB), so a new process
    /// reads them in one narrow sweep. A value that no longer reads as a descriptor of its parameters keeps
    /// its values, to be reported when read.
    static func moveDescriptors(_ db: Database) throws {
        try db.create(table: descriptorsTable) { t in
            t.primaryKey("face_id", .integer).references(table, onDelete: .cascade)
            t.column("parameters", .text).notNull()
            t.column("descriptor", .blob).notNull()
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT id, parameters, descriptor FROM faces")
        while let row = try rows.next() {
            let text: String = row["parameters"], values = [Float](littleEndianBytes: row["descriptor"] as Data)
            let descriptor = (try? JSONDecoder().decode(DescriptorParameters.self, from: Data(text.utf8)))
                .flatMap { parameters in try? FaceDescriptor(parameters: parameters, histograms: values) }
            try setDescriptor(
                text, descriptor?.encoded() ?? FaceDescriptor.encoded(values: values), face: row["id"], db)
        }
        try db.alter(table: table) { t in
            t.drop(column: "parameters")
            t.drop(column: "descriptor")
        }
    }

    static let descriptorsTable = "face_descriptors"

    /// Tags the tables of faces' vectors (``TableTags``), so that galleries tell in one read whether they
    /// still hold them.
    static func addTags(_ db: Database) throws {
        try TableTags.createTable(db)
        for table in [descriptorsTable, embeddingsTable] { try TableTags.track(table, db) }
    }

    /// What keeps listing people cheap: an index that holds what it reads of their faces (which photos,
    /// how large), so that counting them and choosing each one's largest face read no face rows (each holds
    /// its thumbnail), and tags on the faces and people, so that a list kept in memory knows when it is stale.
    static func addPeopleIndex(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX faces_for_people ON faces(person_id, image_id, width, height)")
        for table in [table, "persons"] { try TableTags.track(table, db) }
    }

    private static func setDescriptor(_ parameters: String, _ stored: Data, face: Int64, _ db: Database) throws {
        try setDescriptor(parameters, stored, face: face, SQLiteConnection(db: db))
    }

    private static func setDescriptor(
        _ parameters: String, _ stored: Data, face: Int64, _ connection: any StoreConnection
    ) throws {
        try connection.execute(
            "INSERT INTO \(descriptorsTable) (face_id, parameters, descriptor) VALUES (?, ?, ?)",
            [.integer(face), .text(parameters), .blob(stored)])
    }

    /// Stores embeddings of faces, replacing any they had.
    func setEmbeddings(_ embeddings: [(face: Int64, embedding: [Float])], _ connection: any StoreConnection) throws {
        for (face, embedding) in embeddings { try setEmbedding(embedding, face: face, connection) }
    }

    private func setEmbedding(_ embedding: [Float], face: Int64, _ connection: any StoreConnection) throws {
        try connection.execute(
            """
            INSERT INTO \(Self.embeddingsTable) (face_id, embedding) VALUES (?, ?) \
            ON CONFLICT (face_id) DO UPDATE SET embedding = excluded.embedding
            """, [.integer(face), .vector(embedding)])
    }

    /// Whether some face of the image has no embedding.
    func lacksEmbeddings(image: Int64, _ connection: any StoreConnection) throws -> Bool {
        try connection.integer(
            """
            SELECT COUNT(*) FROM faces LEFT JOIN \(Self.embeddingsTable) ON face_id = id WHERE image_id = ? AND \
            face_id IS NULL
            """, [.integer(image)]) != 0
    }

    /// Faces' embeddings with their images, 500 at a time (see ``batches(_:ids:_:row:_:)``); faces without
    /// one are left out.
    func embeddings(
        _ ids: [Int64]?, _ connection: any StoreConnection,
        _ body: ([(embedding: [Float], face: FaceID, image: ImageID)]) throws -> Void
    ) throws {
        try RowBatches.fetch(
            "SELECT face_id, image_id, embedding FROM \(Self.embeddingsTable) JOIN faces ON faces.id = face_id",
            ids: ids, connection,
            row: { row in
                let face: Int64 = try row.get(0)
                return (
                    try FaceRecord.embedding(face: face, try row.get(2) as [Float]), FaceID(face),
                    ImageID(try row.get(1))
                )
            }, body)
    }

    func insert(_ faces: [FaceRecord], image: Int64, _ connection: any StoreConnection) throws {
        for face in faces {
            let values: [StoreValue] = [
                .integer(image), .integer(Int64(face.x)), .integer(Int64(face.y)), .integer(Int64(face.width)),
                .integer(Int64(face.height)), .real(face.angle), face.leftEyeX.map(StoreValue.real) ?? .null,
                face.leftEyeY.map(StoreValue.real) ?? .null, face.rightEyeX.map(StoreValue.real) ?? .null,
                face.rightEyeY.map(StoreValue.real) ?? .null, .integer(Int64(face.neighbours)), .blob(face.thumbnail),
                face.personID.map(StoreValue.integer) ?? .null, face.assignment.map { .text($0.rawValue) } ?? .null,
            ]
            guard
                let id: Int64 = try connection.rows(
                    """
                    INSERT INTO faces (image_id, x, y, width, height, angle, left_eye_x, left_eye_y, right_eye_x, \
                    right_eye_y, neighbours, thumbnail, person_id, assignment) \
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                    """, values
                ).first?.get(0)
            else { continue }
            try Self.setDescriptor(face.parameters, face.descriptor, face: id, connection)
            if let embedding = face.embedding {
                try setEmbedding(try FaceRecord.embedding(face: id, embedding), face: id, connection)
            }
        }
    }

    func faces(_ ids: [Int64], _ connection: any StoreConnection) throws -> [FaceRecord] {
        try completed(
            connection.rows("SELECT \(FaceRecord.columns) FROM faces WHERE id IN (\(RowBatches.list(ids)))", [])
                .map(FaceRecord.init(row:)), connection)
    }

    /// An image's faces, left to right.
    func faces(ofImage image: Int64, _ connection: any StoreConnection) throws -> [FaceRecord] {
        try completed(
            connection.rows(
                "SELECT \(FaceRecord.columns) FROM faces WHERE image_id = ? ORDER BY x, y", [.integer(image)]
            )
            .map(FaceRecord.init(row:)), connection)
    }

    /// The faces with their descriptors (and parameters) and embeddings read in from their tables.
    private func completed(_ faces: [FaceRecord], _ connection: any StoreConnection) throws -> [FaceRecord] {
        let ids = RowBatches.list(faces.compactMap(\.id))
        func rows(_ columns: String, _ table: String) throws -> [Int64: StoreRow] {
            try Dictionary(
                connection.rows("SELECT face_id, \(columns) FROM \(table) WHERE face_id IN (\(ids))", []).map {
                    row throws(CatalogError) in (try row.get(0), row)
                }
            ) { first, _ in first }
        }
        let descriptors = try rows("parameters, descriptor", Self.descriptorsTable)
        let embeddings = try rows("embedding", Self.embeddingsTable)
        return try faces.map { face throws(CatalogError) in
            var face = face
            let descriptor = face.id.flatMap { descriptors[$0] }
            face.parameters = try descriptor?.get(1) ?? ""
            face.descriptor = try descriptor?.get(2) ?? Data()
            face.embedding = try face.id.flatMap { embeddings[$0] }.map { row throws(CatalogError) in
                (try row.get(1) as [Float]).littleEndianBytes
            }
            return face
        }
    }

    /// Faces stored, faces named (through their person), names with faces.
    func counts(_ connection: any StoreConnection) throws -> (faces: Int, labelled: Int, labels: Int) {
        let named = try connection.rows(
            """
            SELECT COUNT(*), COUNT(DISTINCT person_id) FROM faces JOIN persons ON persons.id = person_id WHERE \
            name IS NOT NULL
            """, []
        ).first
        return (
            Int(try connection.integer("SELECT COUNT(*) FROM faces") ?? 0), try named?.get(0) ?? 0,
            try named?.get(1) ?? 0
        )
    }

    /// The faces whose person has a name.
    func labelledFaces(_ connection: any StoreConnection) throws -> Set<Int64> {
        try Self.ids(Self.labelledFacesQuery, connection)
    }

    /// The ids of the faces whose person has a name.
    static let labelledFacesQuery =
        "SELECT faces.id FROM faces JOIN persons ON persons.id = person_id WHERE name IS NOT NULL"

    func idsWithEmbeddings(_ connection: any StoreConnection) throws -> Set<Int64> {
        try Self.ids("SELECT face_id FROM \(Self.embeddingsTable)", connection)
    }

    func idsWithDescriptors(_ connection: any StoreConnection) throws -> Set<Int64> {
        try Self.ids("SELECT face_id FROM \(Self.descriptorsTable)", connection)
    }

    /// The ids a query of one column returns.
    private static func ids(_ sql: String, _ connection: any StoreConnection) throws -> Set<Int64> {
        var ids = Set<Int64>()
        try connection.forEachRow(sql, []) { row in ids.insert(try row.get(0)) }
        return ids
    }

    /// Faces' descriptors in their stored form with their images, 500 at a time (see
    /// ``batches(_:ids:_:row:_:)``), their parameters checked against `parameters`: comparing descriptors
    /// made with other parameters would be silently wrong.
    func descriptors(
        _ ids: [Int64]?, parameters: DescriptorParameters, _ connection: any StoreConnection,
        _ body: ([(encoded: Data, face: FaceID, image: ImageID)]) throws -> Void
    ) throws {
        var knownText = ""  // the parameters' stored text last checked: the same for every face, as a rule
        try RowBatches.fetch(
            """
            SELECT face_id, image_id, parameters, descriptor FROM \(Self.descriptorsTable) JOIN faces ON faces.id \
            = face_id
            """,
            ids: ids, connection,
            row: { row in
                let id: Int64 = try row.get(0), text: String = try row.get(2)
                if text != knownText {
                    let stored = try FaceRecord.parameters(face: id, text)
                    guard stored == parameters else {
                        throw CatalogError.mismatch(
                            "face \(id) was described with \(stored), the probe with \(parameters)")
                    }
                    knownText = text
                }
                return (try row.get(3) as Data, FaceID(id), ImageID(try row.get(1) as Int64))
            }, body)
    }

    /// The stored faces that matched, with their images' paths on this machine and labels, in the matches'
    /// order; faces removed since the search are left out.
    func hits(_ matches: [FaceMatch], _ connection: any StoreConnection, localPath: (String) -> String) throws
        -> [FaceHit]
    {
        let rows = try connection.rows(
            """
            SELECT faces.id, image_id, path, x, y, faces.width, faces.height, name FROM faces
            JOIN images ON images.id = image_id LEFT JOIN persons ON persons.id = person_id
            WHERE faces.id IN (\(RowBatches.list(matches.map(\.face.rawValue))))
            """, [])
        let byID = Dictionary(try rows.map { row throws(CatalogError) in (try row.get(0) as Int64, row) }) { first, _ in
            first
        }
        return try matches.compactMap { match throws(CatalogError) in
            try byID[match.face.rawValue].map { row throws(CatalogError) in
                FaceHit(
                    face: match.face.rawValue, image: try row.get(1), path: localPath(try row.get(2)),
                    distance: match.distance,
                    x: try row.get(3), y: try row.get(4), width: try row.get(5), height: try row.get(6),
                    label: try row.get(7))
            }
        }
    }

    /// Row ids for an SQL `IN (…)`.
}
