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

    /// Every stored row, in image order.
    func entries(_ db: Database) throws -> [Entry] {
        try Row.fetchAll(db, sql: "SELECT image_id, print, hash, sharpness FROM \(Self.table) ORDER BY image_id").map {
            row in
            Entry(
                image: row[0], print: [Float](littleEndianBytes: row[1] as Data),
                hash: PerceptualHash(bits: UInt64(bitPattern: row[2] as Int64)), sharpness: row[3])
        }
    }

    /// How many images have a row.
    func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Self.table)") ?? 0
    }
}
