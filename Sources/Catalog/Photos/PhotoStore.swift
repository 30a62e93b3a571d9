import FaceRecognition
import Foundation
import GRDB
import PhotoSimilarity

/// The `photo_prints` table and every statement on it: what the photo analysis stores of each image (its
/// print, its perceptual hash, its sharpness and its most probable ImageNet classes), one row an image,
/// dropped with the image (`ON DELETE CASCADE`). A catalog has the table without any analysis, so that
/// searches and duplicate groups read it with no model loaded.
public struct PhotoStore: Sendable {
    static let table = "photo_prints"

    /// One image's row.
    public struct Entry: Sendable {
        public let image: Int64
        /// The L2-normalised print, `PhotoPrinter.length` values.
        public let print: [Float]
        public let hash: PerceptualHash
        /// The variance of the grey plane's Laplacian, at the size the photo was decoded at.
        public let sharpness: Double
        /// What the photo shows, to find it by words; nil where not read, or not stored (a photo printed
        /// before classes were kept, until the next `cbir index`).
        public let classes: PhotoClasses?
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

    /// The column of each photo's classes (`PhotoClasses.bytes`), empty for rows made before it: the next
    /// `cbir index` fills them (``lacksPrintOrClasses(image:_:)``).
    static func addClasses(_ db: Database) throws {
        try db.alter(table: table) { t in t.add(column: "classes", .blob) }
    }

    /// The same on PostgreSQL.
    static let postgresAddClasses = ["ALTER TABLE \(table) ADD COLUMN classes bytea"]

    func insert(_ entry: Entry, _ connection: any StoreConnection) throws {
        try connection.execute(
            """
            INSERT INTO \(Self.table) (image_id, print, hash, sharpness, classes) VALUES (?, ?, ?, ?, ?) \
            ON CONFLICT (image_id) DO UPDATE SET print = excluded.print, hash = excluded.hash, \
            sharpness = excluded.sharpness, classes = excluded.classes
            """,
            [
                .integer(entry.image), .vector(entry.print), .integer(Int64(bitPattern: entry.hash.bits)),
                .real(entry.sharpness), entry.classes.map { .blob($0.bytes) } ?? .null,
            ])
    }

    /// Whether the image has no row yet (indexed before photos were analysed).
    func lacksPrint(image: Int64, _ connection: any StoreConnection) throws -> Bool {
        try connection.integer("SELECT COUNT(*) FROM \(Self.table) WHERE image_id = ?", [.integer(image)]) == 0
    }

    /// Whether the image has no row, or a row without classes that can be read (printed before classes were
    /// kept, or damaged since): the next `cbir index` makes them.
    func lacksPrintOrClasses(image: Int64, _ connection: any StoreConnection) throws -> Bool {
        let row = try connection.rows("SELECT classes FROM \(Self.table) WHERE image_id = ?", [.integer(image)]).first
        guard let bytes = try row?.get(0) as Data? else { return true }
        return PhotoClasses(bytes: bytes) == nil
    }

    /// Every stored photo's classes, by image id, in id order; rows without classes, or with classes that
    /// cannot be read (``damagedClasses(_:)``), are left out until `cbir index` makes them again.
    func classes(_ connection: any StoreConnection) throws -> [(image: Int64, classes: PhotoClasses)] {
        var found: [(image: Int64, classes: PhotoClasses)] = []
        try connection.forEachRow(
            "SELECT image_id, classes FROM \(Self.table) WHERE classes IS NOT NULL ORDER BY image_id", []
        ) { row in
            if let classes = PhotoClasses(bytes: try row.get(1)) { found.append((try row.get(0), classes)) }
        }
        return found
    }

    /// The images whose stored classes cannot be read (not a whole number of entries, a class past the
    /// classifier's, a probability outside 0…1).
    func damagedClasses(_ connection: any StoreConnection) throws -> [Int64] {
        var damaged: [Int64] = []
        try connection.forEachRow("SELECT image_id, classes FROM \(Self.table) WHERE classes IS NOT NULL", []) { row in
            if PhotoClasses(bytes: try row.get(1)) == nil { damaged.append(try row.get(0)) }
        }
        return damaged
    }

    /// The images with a row.
    func imageIDs(_ connection: any StoreConnection) throws -> Set<Int64> {
        try Set(
            connection.rows("SELECT image_id FROM \(Self.table)", []).map { row throws(CatalogError) in try row.get(0) }
        )
    }

    /// The prints of the images `ids` (every stored one when nil), 500 at a time, as rows of a search
    /// gallery: each photo a row whose face and image are the photo.
    func prints(
        _ ids: [Int64]?, _ connection: any StoreConnection,
        _ body: ([(embedding: [Float], face: FaceID, image: ImageID)]) throws -> Void
    ) throws {
        try RowBatches.fetch(
            "SELECT image_id, print FROM \(Self.table)", key: "image_id", ids: ids, connection,
            row: { row in
                let image: Int64 = try row.get(0)
                return (try row.get(1), FaceID(image), ImageID(image))
            }, body)
    }

    /// The print of the image at `path`, if it has one.
    func print(ofImageAt path: String, _ connection: any StoreConnection) throws -> [Float]? {
        try print(of: "images.path = ?", .text(path), connection)
    }

    /// The print of the image `id`, if it has one.
    func print(ofImage id: Int64, _ connection: any StoreConnection) throws -> [Float]? {
        try print(of: "images.id = ?", .integer(id), connection)
    }

    /// The print of the image matching `condition`, if it has one.
    private func print(of condition: String, _ argument: StoreValue, _ connection: any StoreConnection) throws
        -> [Float]?
    {
        try connection.rows(
            "SELECT print FROM \(Self.table) JOIN images ON images.id = image_id WHERE \(condition)", [argument]
        ).first?.get(0)
    }

    /// A printed photo with what finding and choosing among copies reads: its row and its image's file.
    struct PrintedPhoto {
        let entry: Entry
        let path: String
        /// The file's size in bytes and its content hash (byte-identical files share both).
        let size: Int
        let contentHash: String
        let pixels: Int

        var contents: String { PhotoStore.contents(hash: contentHash, size: size) }
    }

    /// What byte-identical files share: their content hash and size.
    static func contents(hash: String, size: Int) -> String { "\(hash) \(size)" }

    /// Every printed photo, by stored path, with its path on this machine.
    func printedPhotos(_ connection: any StoreConnection, localPath: (String) -> String) throws -> [PrintedPhoto] {
        try connection.rows(
            """
            SELECT image_id, print, \(Self.table).hash, sharpness, path, size, images.hash, width * height \
            FROM \(Self.table) JOIN images ON images.id = image_id ORDER BY path
            """, []
        ).map { row throws(CatalogError) in
            PrintedPhoto(
                entry: Entry(
                    image: try row.get(0), print: try row.get(1),
                    hash: PerceptualHash(bits: UInt64(bitPattern: try row.get(2) as Int64)), sharpness: try row.get(3),
                    classes: nil),
                path: localPath(try row.get(4)), size: try row.get(5), contentHash: try row.get(6),
                pixels: try row.get(7))
        }
    }

    /// How many images have a row.
    func count(_ connection: any StoreConnection) throws -> Int {
        Int(try connection.integer("SELECT COUNT(*) FROM \(Self.table)") ?? 0)
    }
}
