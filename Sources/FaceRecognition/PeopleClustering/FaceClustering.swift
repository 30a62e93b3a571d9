import ImageKernels

/// Groups faces into people by their embeddings: average-linkage agglomerative clustering, helped by each
/// face's nearest faces. The two groups whose faces lie closest on average (the root-mean-square distance
/// over every pair of their faces, exact from each group's count, sum and sum of squared norms) merge first,
/// while closer than `threshold`, or, where the faces of one have their nearest faces in the other, closer
/// than `threshold` × (1 + that share), up to `reach`. Candidates come from exact neighbour searches on the
/// device (``EmbeddingNeighbours``) among the groups' centroids, in rounds: the first searches every group
/// (or only the changed faces'), each later one the groups that grew, until a round merges nothing; and from
/// the faces' own nearest faces, searched once. No all-pairs matrix is ever held.
///
/// Average linkage, not a single distance cut like chinese whispers: one close pair does not chain two
/// people together, so the result holds over a range of thresholds where chinese whispers' falls apart.
/// Average linkage alone leaves a person's profiles, or their face of twenty years before, apart from the
/// rest, since those lie far from most of their faces but near a few; the nearest faces bring them in, and
/// two people whose faces each have their nearest faces among their own stay apart (cluster-bench in
/// Benchmarks/RESULTS.md: ORL and glint-24). Deterministic: ties go to the lower face index.
public struct FaceClustering: Sendable {
    /// Groups merge while the root-mean-square distance between their faces is below this.
    public var threshold: Float
    /// Each face's nearest faces (up to ``reach``) that say where it belongs: the share of one group's faces'
    /// nearest faces that lie in another raises the two groups' threshold in proportion. 0: plain average
    /// linkage.
    public var faceNeighbours: Int
    /// The farthest apart two groups may be and still merge because of their faces' nearest faces: by
    /// default ``defaultReach`` at the default threshold, in proportion at others.
    public var reach: Float
    /// Clusters smaller than this are left unassigned; anchored groups are kept whatever their size.
    public var minimumClusterSize: Int
    /// Nearest centroids taken as candidates per group and round.
    public var neighbours: Int
    /// Query rows per launch of the neighbour search; the CPU twin compares the rows of one launch with each
    /// other once, so larger launches do less work (the output holds 8 × `neighbours` bytes a row).
    public var tileRows: Int

    public static let defaultThreshold: Float = 0.55
    public static let defaultFaceNeighbours = 5
    public static let defaultReach: Float = 0.65

    public init(
        threshold: Float = defaultThreshold, faceNeighbours: Int = defaultFaceNeighbours,
        reach: Float? = nil, minimumClusterSize: Int = 2, neighbours: Int = 16, tileRows: Int = 1 << 17
    ) {
        self.threshold = threshold
        self.faceNeighbours = faceNeighbours
        self.reach = reach ?? threshold * Self.defaultReach / Self.defaultThreshold
        self.minimumClusterSize = minimumClusterSize
        self.neighbours = neighbours
        self.tileRows = tileRows
    }

    /// Where clustering starts from: faces already grouped, groups that must stay apart, faces new since.
    public struct Start: Sendable {
        /// For each face, the group it is already in (any key), or nil for a face on its own.
        public var groups: [Int?]
        /// Groups that never merge with each other (people assigned by hand, or all existing people when
        /// new faces are added).
        public var anchored: Set<Int>
        /// The faces whose neighbours the first round searches; nil for all.
        public var changed: [Int]?

        public init(groups: [Int?] = [], anchored: Set<Int> = [], changed: [Int]? = nil) {
            self.groups = groups
            self.anchored = anchored
            self.changed = changed
        }
    }

    /// Clusters `count` embeddings of `length` values each, stored one after another: each face's cluster
    /// (numbered by their first face), or nil for faces left in clusters below the minimum size.
    public func clusters(
        of embeddings: [Float], length: Int, start: Start = Start(),
        context: RenderContext
    ) throws(RecognitionError) -> [Int?] {
        let count = try faceCount(of: embeddings, length: length, groups: start.groups)
        let changed = (start.changed ?? Array(0..<count)).filter { (0..<count).contains($0) }
        var groups = ClusterGroups(
            embeddings: embeddings, length: length, start: start,
            nearestFaces: try nearestFaces(of: embeddings, length: length, searched: changed, context: context),
            faceNeighbours: faceNeighbours)
        var dirty = Set(changed.map { groups.root(of: $0) })
        while !dirty.isEmpty {
            let candidates = try candidatePairs(of: dirty, in: groups, context: context) + groups.linkedPairs(of: dirty)
            dirty = groups.merge(candidates, threshold: Double(threshold), reach: Double(reach))
        }
        return groups.assignments(minimumSize: minimumClusterSize)
    }

    /// How many rows of `length` `embeddings` holds, once the parameters and the `groups` (one per face, or
    /// none) are known to fit them.
    func faceCount(of embeddings: [Float], length: Int, groups: [Int?]) throws(RecognitionError) -> Int {
        guard length > 0, embeddings.count % length == 0, threshold > 0, threshold.isFinite, minimumClusterSize >= 1,
            (1...EmbeddingNeighbours.maximumNeighbours).contains(neighbours), tileRows > 0,
            (0...EmbeddingNeighbours.maximumNeighbours).contains(faceNeighbours), reach >= threshold, reach.isFinite
        else {
            throw .invalidParameters(
                """
                clustering \(embeddings.count) values in rows of \(length): threshold \(threshold), \
                \(faceNeighbours) face neighbours within \(reach), minimum size \(minimumClusterSize), \
                \(neighbours) neighbours, tiles of \(tileRows)
                """)
        }
        let count = embeddings.count / length
        guard count <= EmbeddingNeighbours.maximumRows, groups.isEmpty || groups.count == count else {
            throw .invalidParameters("\(count) faces, \(groups.count) start groups")
        }
        return count
    }

    /// The ``faceNeighbours`` nearest faces (closer than ``reach``) of each face of `searched`, as pairs of
    /// faces: the searched faces go first in the gallery, where the search takes its queries.
    func nearestFaces(
        of embeddings: [Float], length: Int, searched: [Int], context: RenderContext
    ) throws(RecognitionError) -> [(Int, Int)] {
        let count = embeddings.count / length
        guard faceNeighbours > 0, count > 1, !searched.isEmpty else { return [] }
        let isSearched = Set(searched)
        let order = searched + (0..<count).filter { !isSearched.contains($0) }
        var rows = embeddings
        if order != Array(0..<count) {  // from scratch every face is searched, in order: no copy to make
            for (row, face) in order.enumerated() {
                rows[row * length..<(row + 1) * length] = embeddings[face * length..<(face + 1) * length]
            }
        }
        return try Self.neighbourPairs(
            of: rows, length: length, rows: order, queries: searched.count, k: faceNeighbours, radius: reach,
            tileRows: tileRows, context: context)
    }

    /// Each dirty group's nearest centroids closer than the threshold (a necessary condition: a pair's
    /// mean squared distance is the squared distance of their centroids plus both groups' spreads). Pairs
    /// that may merge from farther, up to ``reach``, are those their faces' nearest faces link.
    private func candidatePairs(
        of dirty: Set<Int>, in groups: ClusterGroups,
        context: RenderContext
    ) throws(RecognitionError) -> [(Int, Int)] {
        let roots = groups.roots
        let ordered = roots.filter { dirty.contains($0) } + roots.filter { !dirty.contains($0) }
        guard ordered.count > 1 else { return [] }
        let length = groups.length
        var centroids = [Float](repeating: 0, count: ordered.count * length)
        for (row, root) in ordered.enumerated() { groups.centroid(of: root, into: &centroids, at: row * length) }
        return try Self.neighbourPairs(
            of: centroids, length: length, rows: ordered, queries: dirty.count, k: neighbours, radius: threshold,
            tileRows: tileRows, context: context)
    }

    /// Each of the first `queries` of `values` (rows of `length`, row i standing for `rows[i]`) paired with
    /// its `k` nearest other rows closer than `radius`, as the pairs of what they stand for.
    private static func neighbourPairs(
        of values: [Float], length: Int, rows: [Int], queries: Int, k: Int, radius: Float, tileRows: Int,
        context: RenderContext
    ) throws(RecognitionError) -> [(Int, Int)] {
        do throws(RenderError) {
            let gallery = try context.makeResidentImage(
                ImageDescriptor(width: length, height: rows.count, elementType: .float32), contents: values[...])
            return try EmbeddingNeighbours.pairs(
                in: gallery.image, count: rows.count, queries: queries, k: min(k, rows.count - 1), radius: radius,
                tileRows: tileRows, context: context
            ).map { (rows[$0.query], rows[$0.neighbour]) }
        } catch {
            throw .render(error)
        }
    }
}
