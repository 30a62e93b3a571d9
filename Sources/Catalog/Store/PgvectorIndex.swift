/// pgvector's HNSW indexes as a ``VectorIndex``: each probe one `ORDER BY … LIMIT` that the index answers, the
/// search's beam (`hnsw.ef_search`) as wide as the candidates asked for, within pgvector's bounds, and an
/// iterative scan (`hnsw.iterative_scan`) that goes on past rows a filter leaves out, or past the beam, rather
/// than return too few. Its order is relaxed: the catalog re-ranks the candidates anyway.
struct PgvectorIndex: VectorIndex {
    /// The narrowest beam a search uses, whatever it asks for: see Benchmarks/RESULTS.md, "pgvector".
    static let minimumBeam = 200
    /// The pgvector type of each indexed column, as ``PostgresSchema`` makes it.
    private static let types = [VectorColumn.faceEmbeddings.table: "vector", VectorColumn.photoPrints.table: "halfvec"]

    func approximateCount(of column: VectorColumn, _ connection: any StoreConnection) throws -> Int {
        // The live rows the server counts as transactions end, or the planner's estimate of the last ANALYZE,
        // whichever is larger: either can lag (an ANALYZE not yet run, counts lost in a crash), neither costs a
        // scan. The count's own function, not the pg_stat_user_tables view, whose plan costs a millisecond.
        let estimate = try connection.integer(
            """
            SELECT greatest(reltuples::int8, coalesce(pg_stat_get_live_tuples(oid), 0)) FROM pg_class \
            WHERE oid = to_regclass(?)
            """, [.text(column.table)])
        return Int(estimate ?? 0)
    }

    func candidates(
        in column: VectorColumn, near probes: [[Float]], count: Int, among filter: String?,
        _ connection: any StoreConnection
    ) throws -> [[Int64]] {
        try connection.execute("SET LOCAL hnsw.ef_search = \(min(max(Self.minimumBeam, count), 1000))", [])
        try connection.execute("SET LOCAL hnsw.iterative_scan = relaxed_order", [])
        let type = Self.types[column.table] ?? "vector"
        let distance = column.cosine ? "<=>" : "<->"
        let sql = """
            SELECT \(column.key) FROM \(column.table)\(filter.map { " WHERE \(column.key) IN (\($0))" } ?? "") \
            ORDER BY \(column.column) \(distance) ?::real[]::\(type) LIMIT ?
            """
        return try probes.map { probe in
            try connection.rows(sql, [.vector(probe), .integer(Int64(count))]).map { try $0.get(0) }
        }
    }
}
