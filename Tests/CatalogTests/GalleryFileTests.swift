import Catalog
import FaceRecognition
import Foundation
import GRDB
import TestSupport
import Testing

/// A new process (here a new database object on the same file) searches the descriptors of the gallery
/// file beside the database, which the first query that read them all wrote, as long as the file holds the
/// database's faces (its tag is the database's). Once they change, the file is passed over and written
/// again, even where the faces' ids are those in the file: a restored backup hands out its ids again.
@Suite(.serialized, .needs(.wildPhotos)) struct GalleryFileTests {
    @Test func newProcessesReadTheGalleryFileWhileItHoldsTheDatabasesFaces() async throws {
        let folder = try IndexingTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let context = try IndexingTests.context(), photos = IndexingTests.photos
        let path = folder + "/cbir.sqlite", file = path + "-faces", backup = folder + "/backup.sqlite"
        let faces = try FaceAnalysis(context: context)
        func opened() throws -> Catalog { try Catalog(path: path) }
        func hits(_ database: Catalog) async throws -> [String] {
            try await database.search(
                photo: photos + "/test/obama1.jpg", faces: faces, matcher: .weightedChiSquare, top: 100
            )
            .faces.map { "\($0.path) \($0.x),\($0.y) \($0.distance)" }
        }
        let database = try opened()
        for subfolder in ["/train/obama", "/train/biden"] {
            _ = try await database.index(folder: photos + subfolder, analyses: [faces], context: context)
        }
        try DatabaseQueue(path: path).backup(to: DatabaseQueue(path: backup))
        _ = try await database.index(folder: photos + "/train", analyses: [faces], context: context)
        #expect(!FileManager.default.fileExists(atPath: file))
        let all = try await hits(database)
        #expect(all.count >= 9 && FileManager.default.fileExists(atPath: file), "the first query wrote the file")
        #expect(try await hits(opened()) == all)

        // Trusted while its tag is the database's: a file of one face with that tag is all a new process searches.
        let (tag, row) = try database.read { db in
            (
                try Data.fetchOne(db, sql: "SELECT tag FROM table_tags WHERE name = 'face_descriptors'"),
                try Row.fetchOne(
                    db,
                    sql:
                        """
                        SELECT face_id, image_id, descriptor FROM face_descriptors JOIN faces ON faces.id = \
                        face_id LIMIT 1
                        """
                )
            )
        }
        let one = try #require(row)
        let single = Gallery(parameters: .standard, context: context)
        try single.append(encoded: [
            (one["descriptor"], FaceID(one["face_id"] as Int64), ImageID(one["image_id"] as Int64))
        ])
        try single.write(to: file, tag: try #require(tag))
        #expect(try await hits(opened()).count == 1)
        try FileManager.default.removeItem(atPath: file)
        #expect(try await hits(opened()) == all, "without the file, the descriptors are read from the database")
        #expect(FileManager.default.fileExists(atPath: file), "and the file written again")

        // The backup restored, other photos indexed: their faces take the ids of those in the file.
        try DatabaseQueue(path: backup).backup(to: DatabaseQueue(path: path))
        _ = try await database.index(folder: photos + "/test", analyses: [faces], context: context)
        let restored = try await hits(opened())
        try FileManager.default.removeItem(atPath: file)
        let fromDatabase = try await hits(opened())
        #expect(restored == fromDatabase && fromDatabase != all)
        #expect(fromDatabase.first?.contains("/test/obama1.jpg") == true, "\(fromDatabase)")

        // Without its tag a database could not show a change: that is damage, and said so.
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "DELETE FROM table_tags WHERE name = 'face_descriptors'")
        }
        do {
            _ = try await hits(opened())
            Issue.record("a database without its descriptors' tag was searched")
        } catch {
            #expect(
                "\(error)".hasPrefix("\(path): the database is damaged (table_tags has no row for face_descriptors)."),
                "\(error)")
        }
    }
}
