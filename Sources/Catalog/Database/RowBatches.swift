/// Reading rows of vectors in batches, and writing id lists into SQL.
enum RowBatches {
    /// Hands `body` the rows of `select` made by `row`, 500 at a time: for the rows whose `key` is among
    /// `ids` (an `IN` list of 500 a statement), or for every row when `ids` is nil, in one sweep (for faces'
    /// vectors joined with `faces`, that reads `faces` through its image index rather than row by row:
    /// faster for a new process's first query, Benchmarks/RESULTS.md, index-bench).
    static func fetch<Entry>(
        _ select: String, key: String = "face_id", ids: [Int64]?, _ connection: any StoreConnection,
        row make: (StoreRow) throws -> Entry, _ body: ([Entry]) throws -> Void
    ) throws {
        let statements =
            ids.map { ids in
                stride(from: 0, to: ids.count, by: 500).map { start in
                    select + " WHERE \(key) IN (\(list(ids[start..<min(ids.count, start + 500)])))"
                }
            } ?? [select]
        var batch: [Entry] = []
        batch.reserveCapacity(500)
        for statement in statements {
            try connection.forEachRow(statement, []) { row in
                batch.append(try make(row))
                if batch.count == 500 {
                    try body(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
        }
        if !batch.isEmpty { try body(batch) }
    }

    /// Ids as an SQL list: `1,2,3`; no ids as `NULL`, which no id equals (PostgreSQL refuses an empty `IN ()`).
    static func list<Ids: Sequence<Int64>>(_ ids: Ids) -> String {
        let list = ids.map(String.init).joined(separator: ",")
        return list.isEmpty ? "NULL" : list
    }
}
