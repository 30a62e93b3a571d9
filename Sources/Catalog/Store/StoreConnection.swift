/// A connection to a catalog's store, inside one of its transactions: statements written once for every store,
/// with `?` for each bound value. What differs between stores (column types, how vectors travel, how keys are
/// made) is the conformer's business, so that the catalog's statements do not know which store runs them.
public protocol StoreConnection {
    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ values: [StoreValue]) throws -> Int

    /// Runs a query; returns its rows.
    func rows(_ sql: String, _ values: [StoreValue]) throws -> [StoreRow]

    /// Runs a query and hands its rows to `body` one at a time, where the store can, as they are read: a sweep
    /// of a whole table of vectors need not hold it all at once.
    func forEachRow(_ sql: String, _ values: [StoreValue], _ body: (StoreRow) throws -> Void) throws

    /// Whether the table `name` exists (a catalog checked before it could be brought up to date may lack some).
    func tableExists(_ name: String) throws -> Bool

    /// After rows were inserted into `table` with their keys (`key`) given: keys made later come after theirs.
    func keysInserted(table: String, key: String) throws

    /// The store's clock, in seconds since 1970, as an SQL expression: a server's own, so that workers on
    /// machines whose clocks differ agree on when a lease runs out.
    var clock: String { get }

    /// What ends a query that picks rows to change so that rows another transaction holds are passed over, not
    /// waited for (PostgreSQL's `FOR UPDATE SKIP LOCKED`); empty where one writer holds the whole store at a
    /// time (SQLite).
    var skippingLocked: String { get }
}

extension StoreConnection {
    /// The first column of a query's first row as an integer: a count, say.
    func integer(_ sql: String, _ values: [StoreValue] = []) throws -> Int64? {
        try rows(sql, values).first?.values.first?.integer
    }
}
