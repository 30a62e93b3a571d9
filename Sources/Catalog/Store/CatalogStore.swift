/// Where a catalog's rows are kept: a SQLite file (the embedded default) or a PostgreSQL database that several
/// machines share. Each transaction hands its body a ``StoreConnection``; the catalog's statements are the same
/// on every store.
protocol CatalogStore: Sendable {
    /// Where the store is, for messages: a file's path, or a server's URL without its password.
    var location: String { get }

    /// Reads in one snapshot.
    func read<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T

    /// Writes in one transaction: all of it is kept, or none.
    func write<T>(_ body: (any StoreConnection) throws -> T) throws(CatalogError) -> T

    /// The store's own index of its vectors, if it keeps one; nil: searches read every vector.
    var vectorIndex: (any VectorIndex)? { get }
}

/// The store at `location`: a PostgreSQL URL (``PostgresLocation``) or a SQLite file's path.
func catalogStore(at location: String, access: Catalog.Access) throws(CatalogError) -> any CatalogStore {
    try Catalog(path: location, access: access).storage
}
