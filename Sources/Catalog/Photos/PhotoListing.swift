import Foundation
import GRDB

/// An indexed photo as a list shows it: its id, file, size in pixels and how many faces it holds.
public struct PhotoSummary: Sendable, Codable, Equatable {
    public let id: Int64
    public let path: String
    public let width: Int
    public let height: Int
    public let faces: Int
}

/// A face of a photo as a page boxes it: where it lies in the file's pixels and who it is.
public struct PhotoFace: Sendable, Codable, Equatable {
    public let id: Int64
    public let x, y, width, height: Int
    /// The person it is grouped into, and that person's name, if any.
    public let person: Int64?
    public let name: String?
    /// Whether clustering put it there, or a person by hand.
    public let assignment: FaceAssignment?
}

/// One page of a list and how long the whole list is.
public struct Page<Item: Sendable & Codable & Equatable>: Sendable, Codable, Equatable {
    public let items: [Item]
    public let total: Int
}

extension Catalog {
    /// The indexed photos (those of `person` only, when given) in path order, `limit` of them from `offset`.
    public nonisolated func photos(of person: Int64? = nil, offset: Int, limit: Int) throws(CatalogError)
        -> Page<PhotoSummary>
    {
        guard offset >= 0, limit >= 0 else { throw .invalidQuery("a page starts at 0 and holds at least 0 photos") }
        let condition =
            person == nil
            ? "status = 'indexed'" : "id IN (SELECT image_id FROM faces WHERE person_id = :person)"
        let arguments: StatementArguments = ["person": person, "limit": limit, "offset": offset]
        return try read { db in
            let total = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM images WHERE \(condition)", arguments: arguments)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, path, width, height, (SELECT COUNT(*) FROM faces WHERE image_id = images.id) AS faces \
                    FROM images WHERE \(condition) ORDER BY path LIMIT :limit OFFSET :offset
                    """, arguments: arguments)
            return Page(
                items: rows.map {
                    PhotoSummary(
                        id: $0["id"], path: $0["path"], width: $0["width"], height: $0["height"], faces: $0["faces"])
                }, total: total ?? 0)
        }
    }

    /// The indexed photo `id` as stored, or ``CatalogError/notFound(_:)`` (a file recorded as failed is no photo).
    public nonisolated func image(_ id: Int64) throws(CatalogError) -> ImageRecord {
        guard let image = try read({ db in try ImageRecord.fetchOne(db, key: id) }), image.status == .indexed else {
            throw .notFound("photo \(id)")
        }
        return image
    }

    /// The faces of the image `id`, left to right, with their people.
    public nonisolated func faces(inImage id: Int64) throws(CatalogError) -> [PhotoFace] {
        try read { db in try Self.photoFaces(db, where: "image_id = ?", id).map(\.face) }
    }

    /// The face `id` with its person, and its image's id, or ``CatalogError/notFound(_:)``.
    public nonisolated func face(_ id: Int64) throws(CatalogError) -> (image: Int64, face: PhotoFace) {
        guard let found = try read({ db in try Self.photoFaces(db, where: "faces.id = ?", id).first }) else {
            throw .notFound("face \(id)")
        }
        return found
    }

    /// Faces matching `condition` (on `faces`), left to right, with their people and images' ids.
    private static func photoFaces(_ db: Database, where condition: String, _ argument: Int64) throws
        -> [(image: Int64, face: PhotoFace)]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT faces.id, image_id, x, y, width, height, person_id, name, assignment FROM faces \
                LEFT JOIN persons ON persons.id = person_id WHERE \(condition) ORDER BY x, y
                """, arguments: [argument]
        ).map {
            (
                $0["image_id"],
                PhotoFace(
                    id: $0["id"], x: $0["x"], y: $0["y"], width: $0["width"], height: $0["height"],
                    person: $0["person_id"], name: $0["name"],
                    assignment: ($0["assignment"] as String?).flatMap(FaceAssignment.init(rawValue:)))
            )
        }
    }

    /// Whether the image `id` has a print (without reading it).
    public nonisolated func hasPrint(image id: Int64) throws(CatalogError) -> Bool {
        try read { db in try !PhotoStore().lacksPrint(image: id, db) }
    }

    /// The stored print of the image `id`, if it was printed.
    public nonisolated func storedPrint(ofImage id: Int64) throws(CatalogError) -> [Float]? {
        try read { db in try PhotoStore().print(ofImage: id, db) }
    }
}
