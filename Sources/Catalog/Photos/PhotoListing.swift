import Foundation

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
        let (condition, arguments): (String, [StoreValue]) =
            person.map { ("id IN (SELECT image_id FROM faces WHERE person_id = ?)", [.integer($0)]) }
            ?? ("status = 'indexed'", [])
        return try reading { connection in
            let total = try connection.integer("SELECT COUNT(*) FROM images WHERE \(condition)", arguments)
            let rows = try connection.rows(
                """
                SELECT id, path, width, height, (SELECT COUNT(*) FROM faces WHERE image_id = images.id) AS faces \
                FROM images WHERE \(condition) ORDER BY path LIMIT ? OFFSET ?
                """, arguments + [.integer(Int64(limit)), .integer(Int64(offset))])
            return Page(
                items: try rows.map { row throws(CatalogError) in
                    PhotoSummary(
                        id: try row.get(0), path: localPath(try row.get(1)), width: try row.get(2),
                        height: try row.get(3),
                        faces: try row.get(4))
                }, total: Int(total ?? 0))
        }
    }

    /// The indexed photo `id` as stored, or ``CatalogError/notFound(_:)`` (a file recorded as failed is no photo).
    public nonisolated func image(_ id: Int64) throws(CatalogError) -> ImageRecord {
        let image = try readingStatement { connection in
            try connection.rows("SELECT \(ImageRecord.columns) FROM images WHERE id = ?", [.integer(id)]).first.map(
                imageRecord)
        }
        guard let image, image.status == .indexed else {
            throw .notFound("photo \(id)")
        }
        return image
    }

    /// The faces of the image `id`, left to right, with their people.
    public nonisolated func faces(inImage id: Int64) throws(CatalogError) -> [PhotoFace] {
        try readingStatement { connection in
            try Self.photoFaces(connection, where: "image_id = ?", id).map(\.face)
        }
    }

    /// The face `id` with its person, and its image's id, or ``CatalogError/notFound(_:)``.
    public nonisolated func face(_ id: Int64) throws(CatalogError) -> (image: Int64, face: PhotoFace) {
        guard
            let found = try readingStatement({ connection in
                try Self.photoFaces(connection, where: "faces.id = ?", id).first
            })
        else {
            throw .notFound("face \(id)")
        }
        return found
    }

    /// Faces matching `condition` (on `faces`), left to right, with their people and images' ids.
    private static func photoFaces(_ connection: any StoreConnection, where condition: String, _ argument: Int64)
        throws -> [(image: Int64, face: PhotoFace)]
    {
        try connection.rows(
            """
            SELECT faces.id, image_id, x, y, width, height, person_id, name, assignment FROM faces \
            LEFT JOIN persons ON persons.id = person_id WHERE \(condition) ORDER BY x, y
            """, [.integer(argument)]
        ).map { row throws(CatalogError) in
            (
                try row.get(1),
                PhotoFace(
                    id: try row.get(0), x: try row.get(2), y: try row.get(3), width: try row.get(4),
                    height: try row.get(5), person: try row.get(6), name: try row.get(7),
                    assignment: (try row.get(8) as String?).flatMap(FaceAssignment.init(rawValue:)))
            )
        }
    }

    /// Whether the image `id` has a print (without reading it).
    public nonisolated func hasPrint(image id: Int64) throws(CatalogError) -> Bool {
        try readingStatement { connection in try !PhotoStore().lacksPrint(image: id, connection) }
    }

    /// The stored print of the image `id`, if it was printed.
    public nonisolated func storedPrint(ofImage id: Int64) throws(CatalogError) -> [Float]? {
        try readingStatement { connection in try PhotoStore().print(ofImage: id, connection) }
    }
}
