/// How well a distance ranks a UKBench-style set (groups of photos of one object): every photo queried
/// against all of them, itself included.
struct RetrievalScore {
    /// The N-S score: the mean number of the query's group among its 4 nearest (4.0 is perfect).
    let nsScore: Double
    /// Mean average precision over the whole ranking of the other photos (the query left out, as
    /// retrieval's mAP is usually counted).
    let meanAveragePrecision: Double

    /// Scores `distance(query, other)` over photos whose groups are `groups`, the first `queries` of them
    /// (every one when nil) each a query; ties keep index order.
    init(groups: [Int], queries: Int? = nil, distance: (Int, Int) -> Float) {
        let count = groups.count, queries = queries ?? count
        var hits = 0.0, precision = 0.0
        for query in 0..<queries {
            let ranking = (0..<count).map { (distance(query, $0), $0) }.sorted { $0 < $1 }.map(\.1)
            hits += Double(ranking.prefix(4).filter { groups[$0] == groups[query] }.count)
            let others = ranking.filter { $0 != query }
            let relevant = others.filter { groups[$0] == groups[query] }.count
            var found = 0, sum = 0.0
            for (rank, photo) in others.enumerated() where groups[photo] == groups[query] {
                found += 1
                sum += Double(found) / Double(rank + 1)
            }
            precision += relevant > 0 ? sum / Double(relevant) : 0
        }
        nsScore = hits / Double(queries)
        meanAveragePrecision = precision / Double(queries)
    }
}
