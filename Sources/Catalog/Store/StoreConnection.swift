/// A connection to a catalog's store, inside one of its transactions: statements written once for every store,
/// with `?` for each bound value. What differs between stores (column types, how vectors travel, how keys are
/// made) is the conformer's business, so that the catalog's statements do not know which store runs them.
protocol StoreConnection {
    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ values: [StoreValue]) throws -> Int

    /// Runs a query; returns its rows, each a value per column in the order the query names them.
    func rows(_ sql: String, _ values: [StoreValue]) throws -> [[StoreValue]]

    /// After rows were inserted into `table` with their keys given: keys made later come after theirs.
    func keysInserted(_ table: CatalogTable) throws
}

extension StoreConnection {
    /// The first column of a query's first row as an integer: a count, say.
    func integer(_ sql: String, _ values: [StoreValue] = []) throws -> Int64? {
        try rows(sql, values).first?.first?.integer
    }
}
