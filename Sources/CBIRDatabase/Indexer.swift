import GRDB
import ImageCodecs
import ImageKernels

/// A photo as indexers see it: decoded once, DCT-scaled, in colour (or gray where the file is gray),
/// with the factor back to the file's own pixels.
public struct Photo: Sendable {
    /// The file.
    public let path: String
    /// The decoded pixels (1, 3 or 4 planes of `uint8`).
    public let pixels: PixelBuffer
    /// One gray plane of the same size.
    public let gray: PixelBuffer
    /// Original pixels per decoded pixel (1, 2, 4 or 8).
    public let scale: Double

    /// How photos are decoded for indexing and probing: DCT-scaled to a long side of at least 640 pixels.
    public static let decoding = DecodingOptions(minimumLongSide: 640)

    /// Decodes a file's bytes as indexing does.
    public init(path: String, bytes: [UInt8], context: RenderContext) throws {
        pixels = try ImageDecoder.decode(bytes, path: path, options: Self.decoding)
        gray = pixels.descriptor.channels == 1 ? pixels : try context.render(Image(pixels).grayscale())
        scale = Double(ImageDecoder.reduction(of: bytes, options: Self.decoding))
        self.path = path
    }
}

/// Something computed from each photo and stored with it: faces, colours, anything. Indexers are
/// registered by name with the database; each one's rows for an image are written in that image's
/// transaction, so an image is stored whole or not at all. Rows in the indexer's own tables should
/// reference `images(id)` with `ON DELETE CASCADE`, so that re-indexing or removing a file drops them.
public protocol Indexer: Sendable {
    /// What `analyze` hands to `write`.
    associatedtype Analysis: Sendable

    /// Unique among registered indexers; names the indexer's migration.
    var name: String { get }

    /// Creates the indexer's own tables. Runs once per database, as the migration "indexer <name>".
    func createTables(_ db: Database) throws

    /// Changes to those tables since they were first made, oldest first: each runs once per database,
    /// after `createTables`, as the migration "indexer <name> <change>", so that old databases upgrade in
    /// place.
    var tableChanges: [(name: String, change: @Sendable (Database) throws -> Void)] { get }

    /// Works on one photo, away from the database (in parallel with other work).
    func analyze(_ photo: Photo) throws -> Analysis

    /// Works on several photos at once, so that they can share renders (say, all their faces through a
    /// network in one batch): each photo's analysis, or the error that photo met. By default one at a time.
    func analyze(_ photos: [Photo]) -> [Result<Analysis, any Error>]

    /// Stores the analysis of the image whose row id is `image`, inside the image's transaction.
    func write(_ analysis: Analysis, image: Int64, to db: Database) throws
}

extension Indexer {
    public var tableChanges: [(name: String, change: @Sendable (Database) throws -> Void)] { [] }

    public func analyze(_ photos: [Photo]) -> [Result<Analysis, any Error>] {
        photos.map { photo in Result { try analyze(photo) } }
    }

    /// Analyses a batch now and returns each photo's write for later, so that indexers of different types
    /// can be run side by side.
    func prepare(_ photos: [Photo]) -> [Result<@Sendable (Database, Int64) throws -> Void, any Error>] {
        analyze(photos).map { analysis in
            analysis.map { analysis in { db, image in try write(analysis, image: image, to: db) } }
        }
    }
}
