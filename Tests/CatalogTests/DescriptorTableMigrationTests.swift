import Catalog
import FaceRecognition
import Foundation
import GRDB
import ImageKernels
import Testing

/// A database made when descriptors were Float32 columns of `faces`: they move with their parameters to their own
/// table in their compact form, bit for bit, and every LBP search answers as before; a damaged one keeps its bytes
/// and `check` still names it.
@Suite(.needs(.wildPhotos)) struct DescriptorTableMigrationTests {
    @Test func descriptorsMoveToTheirTableUnchanged() async throws {
        let folder = try IndexingTests.temporaryFolder(), path = folder + "/cbir.sqlite"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let faces = try FaceAnalysis(context: RenderContext(device: .cpu), embeddings: false)
        let probe = IndexingTests.photos + "/test/obama1.jpg"
        let matchers = [Matcher.weightedChiSquare, .restrictedNBNN, .nbnn]
        var before: [Matcher: [FaceHit]] = [:], descriptors: [Int64: [Float]] = [:]
        do {
            let database = try Catalog(path: path)
            _ = try await database.index(
                folder: IndexingTests.photos + "/train", analyses: [faces], context: faces.context)
            for matcher in matchers {
                before[matcher] = try await database.search(photo: probe, faces: faces, matcher: matcher, top: 30).faces
            }
            let ids = try database.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM faces") }
            for face in try database.faces(ids) {
                descriptors[try #require(face.id)] = try face.faceDescriptor().histograms
            }
        }
        // The layout before: raw little-endian Float32 in a column of faces, one of them damaged (3 values).
        let damaged = try #require(descriptors.keys.max())
        let old = try DatabaseQueue(path: path), stored = descriptors
        try await old.write { db in
            try db.execute(
                sql: """
                    ALTER TABLE faces ADD COLUMN parameters TEXT NOT NULL DEFAULT '';
                    ALTER TABLE faces ADD COLUMN descriptor BLOB NOT NULL DEFAULT x'';
                    UPDATE faces SET parameters = (SELECT parameters FROM face_descriptors WHERE face_id = faces.id);
                    """)
            for (id, values) in stored {
                let bytes = Data(
                    (id == damaged ? Array(values.prefix(3)) : values).flatMap { value in
                        withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) }
                    })
                try db.execute(sql: "UPDATE faces SET descriptor = ? WHERE id = ?", arguments: [bytes, id])
            }
            try db.execute(sql: "DROP TABLE face_descriptors")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'indexer faces descriptor table'")
        }
        try old.close()

        let database = try Catalog(path: path)
        let check = try database.check()
        #expect(
            check.problems.count == 1 && check.problems[0].contains("face \(damaged): damaged descriptor: 3 values"),
            "\(check.problems)")
        let sizes = try database.read { db in
            try Int.fetchAll(
                db, sql: "SELECT length(descriptor) FROM face_descriptors WHERE face_id != ?",
                arguments: [damaged])
        }
        #expect(sizes.count == descriptors.count - 1 && sizes.allSatisfy { $0 < 8192 }, "\(sizes)")
        try await database.write { db in try db.execute(sql: "DELETE FROM faces WHERE id = ?", arguments: [damaged]) }
        let ids = try database.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM faces") }
        for face in try database.faces(ids) {
            #expect(
                try face.faceDescriptor().histograms.map(\.bitPattern)
                    == descriptors[try #require(face.id)]?.map(\.bitPattern))
        }
        for matcher in matchers {
            let expected = try #require(before[matcher]).filter { $0.face != damaged }
            let after = try await database.search(photo: probe, faces: faces, matcher: matcher, top: 30).faces
            #expect(Array(after.prefix(expected.count)) == expected, "\(matcher)")
        }
    }
}
