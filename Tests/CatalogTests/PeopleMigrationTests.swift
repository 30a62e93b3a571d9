import Catalog
import Foundation
import GRDB
import ImageKernels
import Testing

/// A database made before people: its labels become named people, their faces assigned by hand, and
/// everything that read labels reads them through people; its embeddings move to their own table.
@Suite struct PeopleMigrationTests {
    @Test func labelsBecomeNamedPeople() throws {
        let path = NSTemporaryDirectory() + "people-migration-\(UUID().uuidString).sqlite"
        let embedding = (0..<128).map { Float($0) / 128 }
        let embeddingBytes = Data(
            embedding.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } })
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        // The tables as the version before people made them, with three faces, two labelled alike.
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE images (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL UNIQUE, size \
                    INTEGER NOT NULL,
                        modified DOUBLE NOT NULL, hash TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
                        status TEXT NOT NULL, error TEXT);
                    CREATE TABLE faces (id INTEGER PRIMARY KEY AUTOINCREMENT,
                        image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE, x INTEGER NOT NULL, y \
                        INTEGER NOT NULL,
                        width INTEGER NOT NULL, height INTEGER NOT NULL, angle DOUBLE NOT NULL, left_eye_x DOUBLE, \
                        left_eye_y DOUBLE,
                        right_eye_x DOUBLE, right_eye_y DOUBLE, neighbours INTEGER NOT NULL, parameters TEXT NOT NULL,
                        descriptor BLOB NOT NULL, thumbnail BLOB NOT NULL, label TEXT, embedding BLOB);
                    CREATE INDEX faces_on_image_id ON faces(image_id);
                    CREATE INDEX faces_on_label ON faces(label);
                    CREATE INDEX faces_with_embeddings ON faces(id) WHERE embedding IS NOT NULL;
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('images'), ('indexer faces'), ('indexer faces embeddings');
                    INSERT INTO images VALUES (1, '/photos/a.jpg', 1, 0, 'h', 100, 100, 'indexed', NULL);
                    """)
            for (x, label) in [(0, "Ada"), (30, nil), (60, "Ada")] as [(Int, String?)] {
                try db.execute(
                    sql: """
                        INSERT INTO faces (image_id, x, y, width, height, angle, neighbours, parameters, descriptor, \
                        thumbnail, label, embedding)
                        VALUES (1, ?, 0, 20, 20, 0, 3, '{}', x'', x'', ?, ?)
                        """, arguments: [x, label, x == 30 ? embeddingBytes : nil])
            }
        }
        try old.close()
        let database = try Catalog(path: path)
        let people = try database.people()
        #expect(people.map(\.name) == ["Ada"] && people.first?.faces == 2, "\(people)")
        #expect(try database.labels().labels.map(\.x) == [0, 60])
        let statistics = try database.statistics()
        #expect(statistics.labelledFaces == 2 && statistics.labels == 1)
        let faces = try database.faces([1, 2, 3]).sorted { $0.x < $1.x }
        #expect(faces.map(\.assignment) == [.manual, nil, .manual])
        #expect(try faces.map { try $0.faceEmbedding() } == [nil, embedding, nil])
    }
}
