import GRDB

/// What turns photos into stored rows: the faces and what is known of them today, anything else tomorrow.
/// The commands that analyse photos build their analyses (loading models, choosing devices) and hand them
/// to an indexing run
/// (``Catalog/index(folder:analyses:context:keepMissing:concurrency:batch:lease:patience:progress:)``);
/// a catalog itself needs none. Each analysis's rows for an image are written in that image's transaction,
/// so an image is stored whole or not at all. Rows in an analysis's tables should reference `images(id)`
/// with `ON DELETE CASCADE`, so that re-indexing or removing a file drops them.
public protocol PhotoAnalysis: Sendable {
    /// What `analyze` hands to `write`.
    associatedtype Analysis: Sendable

    /// Unique among the analyses of a run; names the migrations of its own tables.
    var name: String { get }

    /// What the analysis's rows are made with (its models and their settings), in a few words: workers that
    /// index one folder together must agree on it, or their rows would be of different kinds.
    var version: String { get }

    /// The analysis's own tables, made and then changed in place, oldest first: each runs once per catalog
    /// (as the migration "indexer <name> <migration>") before the first run that indexes with it. Tables
    /// the catalog knows (faces, people) are not among them: they are there without any analysis.
    var migrations: [(name: String, migrate: @Sendable (Database) throws -> Void)] { get }

    /// Works on one photo, away from the database (in parallel with other work).
    func analyze(_ photo: Photo) throws -> Analysis

    /// Works on several photos at once, so that they can share renders (say, all their faces through a
    /// network in one batch): each photo's analysis, or the error that photo met. By default one at a time.
    func analyze(_ photos: [Photo]) -> [Result<Analysis, any Error>]

    /// Stores the analysis of the image whose row id is `image`, inside the image's transaction.
    func write(_ analysis: Analysis, image: Int64, to connection: any StoreConnection) throws

    /// Whether an image stored unchanged lacks part of what this analysis stores for it (it was indexed
    /// before the analysis, or a part of it, existed). By default false.
    func isIncomplete(image: Int64, _ connection: any StoreConnection) throws -> Bool

    /// The write that completes such an image's rows, made from its photo and what `catalog` stores for it.
    func completion(of image: Int64, photo: Photo, in catalog: Catalog) throws
        -> @Sendable (any StoreConnection) throws -> Void
}

extension PhotoAnalysis {
    public var migrations: [(name: String, migrate: @Sendable (Database) throws -> Void)] { [] }

    public func analyze(_ photos: [Photo]) -> [Result<Analysis, any Error>] {
        photos.map { photo in Result { try analyze(photo) } }
    }

    public func isIncomplete(image: Int64, _ connection: any StoreConnection) throws -> Bool { false }

    public func completion(of image: Int64, photo: Photo, in catalog: Catalog) throws
        -> @Sendable (any StoreConnection) throws -> Void
    {
        { _ in }
    }

    /// Analyses a batch now and returns each photo's write for later, so that analyses of different types
    /// can be run side by side.
    func prepare(_ photos: [Photo]) -> [Result<@Sendable (any StoreConnection, Int64) throws -> Void, any Error>] {
        analyze(photos).map { analysis in
            analysis.map { analysis in { connection, image in try write(analysis, image: image, to: connection) } }
        }
    }
}
