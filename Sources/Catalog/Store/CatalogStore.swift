/// Where a catalog's rows are kept: a SQLite file (the embedded default) or a PostgreSQL database that several
/// machines share. Each transaction hands its body a ``StoreConnection``; the catalog's statements are the same
/// on every store.
protocol CatalogStore: Sendable {
    /// Where the store is, for messages: a file's path, or a server's URL without its password.
    var location: String { get }

    /// Reads in one snapshot.
    func read<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T

    /// Reads what one statement answers, which is a snapshot on its own: a store whose transactions cost
    /// round trips (a server's) sends the statement alone. A second statement is refused.
    func readStatement<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T

    /// Writes in one transaction: all of it is kept, or none.
    func write<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T

    /// Writes in one transaction that is on disk when it returns, whatever the store's setting for other writes
    /// (a SQLite file in WAL mode syncs at checkpoints only): what a journal needs before it acts on files.
    func writeDurably<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T

    /// The newest migration of the store's tables this build knows: workers that index together agree on it.
    var schemaVersion: String { get }

    /// The store's own index of its vectors, if it keeps one; nil: searches read every vector.
    var vectorIndex: (any VectorIndex)? { get }

    /// Whether its calls wait on another process's answers (a server's round trips) rather than on this
    /// machine's disk and cores: what a caller that serves many at once runs on threads that may block.
    var waitsOnRoundTrips: Bool { get }
}

extension CatalogStore {
    /// A write like any other, on a store whose commits are durable (PostgreSQL's, `synchronous_commit` on).
    func writeDurably<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try write(body)
    }

    /// In a transaction like any read, as a store whose transactions cost nothing to begin and end needs.
    func readStatement<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T {
        try read { connection in try body(OneStatement(connection, at: location)) }
    }
}

/// The store at `location`: a PostgreSQL URL (``PostgresLocation``) or a SQLite file's path.
func catalogStore(at location: String, access: Catalog.Access) throws(CatalogError) -> any CatalogStore {
    try Catalog(path: location, access: access).storage
}
