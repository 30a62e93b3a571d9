import FaceRecognition
import Foundation
import GRDB
import PhotoSimilarity

/// The `photo_prints` table and every statement on it: what the photo analysis stores of each image (its
/// print, its perceptual hash and its sharpness), one row an image, dropped with the image
/// (`ON DELETE CASCADE`). A catalog has the table without any analysis, so that searches and duplicate
/// groups read it with no model loaded.
public struct PhotoStore: Sendable {
    static let table = "photo_prints"

    /// One image's row.
    public struct Entry: Sendable {
        public let image: Int64
        /// The L2-normalised print, ``PhotoPrinter/length`` values.
        public let print: [Float]
        public let hash: PerceptualHash
        /// The variance of the grey plane's Laplacian, at the size the photo was decoded at.
        public let sharpness: Double
    }

    public init() {}

    static func createTable(_ db: Database) throws {
        try db.create(table: table) { t in
            t.primaryKey("image_id", .integer).references(ImageRecord.databaseTableName, onDelete: .cascade)
            t.column("print", .blob).notNull()
            t.column("hash", .integer).notNull()
            t.column("sharpness", .double).notNull()
        }
        try TableTags.track(table, db)
    }

    func insert(_ entry: Entry, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO \(Self.table) (image_id, print, hash, sharpness) VALUES (?, ?, ?, ?)",
            arguments: [
                entry.image, entry.print.littleEndianBytes, Int64(bitPattern: entry.hash.bits), entry.sharpness,
            ])
    }

    /// Whether the image has no row yet (indexed before photos were analysed).
    func lacksPrint(image: Int64, _ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Self.table) WHERE image_id = ?", arguments: [image]) == 0
    }

    /// The images with a row.
    func imageIDs(_ db: Database) throws -> Set<Int64> {
        try Set(Int64.fetchAll(db, sql: "SELECT image_id FROM \(Self.table)"))
    }

    /// The prints of the images `ids` (every stored one when nil), 500 at a time, as rows of a search
    /// gallery: each photo a row whose face and image are the photo.
    func prints(
        _ ids: [Int64]?, _ db: Database, _ body: ([(embedding: [Float], face: FaceID, image: ImageID)]) throws -> Void
    ) throws {
        try RowBatches.fetch(
            "SELECT image_id, print FROM \(Self.table)", key: "image_id", ids: ids, db,
            row: { row in
                let image: Int64 = row[0]
                return ([Float](littleEndianBytes: row[1] as Data), FaceID(image), ImageID(image))
            }, body)
    }

    /// The print of the image at `path`, if it has one.
    func print(ofImageAt path: String, _ db: Database) throws -> [Float]? {
        try print(of: "images.path = ?", path, db)
    }

    /// The print of the image `id`, if it has one.
    func print(ofImage id: Int64, _ db: Database) throws -> [Float]? {
        try print(of: "images.id = ?", id, db)
    }

    /// The print of the image matching `condition`, if it has one.
    private func print(of condition: String, _ argument: some DatabaseValueConvertible, _ db: Database) throws
        -> [Float]?
    {
        try Data.fetchOne(
            db, sql: "SELECT print FROM \(Self.table) JOIN images ON images.id = image_id WHERE \(condition)",
            arguments: [argument]
        ).map { [Float](littleEndianBytes: $0) }
    }

    /// A printed photo with what finding and choosing among copies reads: its row and its image's file.
    struct PrintedPhoto {
        let entry: Entry
        let path: String
        /// The file's size in bytes and its content hash (byte-identical files share both).
        let size: Int
        let contentHash: String
        let pixels: Int
    }

    /// Every printed photo, by path.
    func printedPhotos(_ db: Database) throws -> [PrintedPhoto] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT image_id, print, \(Self.table).hash, sharpness, path, size, images.hash, width * height \
                FROM \(Self.table) JOIN images ON images.id = image_id ORDER BY path
                """
        ).map { row in
            PrintedPhoto(
                entry: Entry(
                    image: row[0], print: [Float](littleEndianBytes: row[1] as Data),
                    hash: PerceptualHash(bits: UInt64(bitPattern: row[2] as Int64)), sharpness: row[3]),
                path: row[4], size: row[5], contentHash: row[6], pixels: row[7])
        }
    }

    /// How many images have a row.
    func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Self.table)") ?? 0
    }
}
