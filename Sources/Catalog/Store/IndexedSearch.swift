import FaceRecognition
import Foundation
import ImageKernels

extension Catalog {
    /// The most vectors a column may hold and still be searched exactly, every one on the device, where the
    /// store indexes them: `FACESEARCH_EXACT_SEARCH` in the environment, or 20,000. Measured on this project's
    /// 2-core machine (Benchmarks/RESULTS.md, "Searching on PostgreSQL"): at 10,000 photos a server that holds
    /// the prints answers similar photos 2.6 times as fast exactly as through the index, while a fresh process
    /// loses 0.1 s reading them; at 100,000 a fresh process would read them for 2 s, the index answers in 0.2.
    static let exactSearchLimit =
        ProcessInfo.processInfo.environment["FACESEARCH_EXACT_SEARCH"].flatMap { Int($0) } ?? 20_000

    /// How many candidates the index is asked for, for each result wanted: see Benchmarks/RESULTS.md, "pgvector".
    static let candidatesPerResult = 4
    /// The fewest candidates the index is asked for.
    static let minimumCandidates = 40

    /// The store's index where searches of `column` take their candidates from it: where it keeps one and the
    /// column holds more than ``exactSearchLimit`` vectors.
    nonisolated func candidateIndex(for column: VectorColumn) throws(CatalogError) -> (any VectorIndex)? {
        guard let index = storage.vectorIndex,
            // An estimate, which needs no snapshot shared with the search.
            try readingStatement({ connection in try index.approximateCount(of: column, connection) })
                > Self.exactSearchLimit
        else { return nil }
        return index
    }

    /// The candidates the store's index finds near `probes` (enough for `top` results each, among the keys
    /// `filter` returns), as a gallery on `context` that a search re-ranks exactly in float32; nil where the
    /// search reads every vector instead: the store keeps no index, or `column` holds no more than
    /// ``exactSearchLimit`` vectors, so that a small library loses nothing.
    nonisolated func candidateGallery(
        _ column: VectorColumn, near probes: [[Float]], top: Int, among filter: String? = nil,
        context: RenderContext
    ) throws(CatalogError) -> EmbeddingGallery? {
        guard let index = try candidateIndex(for: column) else { return nil }
        let count = max(top * Self.candidatesPerResult, Self.minimumCandidates)
        let gallery = EmbeddingGallery(length: column.length, context: context)
        try reading { connection in
            let keys = try index.candidates(in: column, near: probes, count: count, among: filter, connection)
            let unique = Array(Set(keys.joined()))
            gallery.reserveCapacity(unique.count)
            try column.read(unique, connection) { batch in try gallery.append(batch) }
        }
        return gallery
    }
}
