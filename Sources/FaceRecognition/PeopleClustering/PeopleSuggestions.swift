import ImageKernels

extension FaceClustering {
    /// What may be the same person as a group: another group, or a face in none.
    public enum Candidate: Hashable, Sendable {
        case group(Int)
        case face(Int)
    }

    /// A candidate and how near it lies: the root-mean-square distance between its faces and the group's,
    /// over (1 + the share of their faces' nearest faces that lie in the other), the measure clustering
    /// merges by.
    public struct Suggestion: Hashable, Sendable {
        public let candidate: Candidate
        public let distance: Float
    }

    /// How far apart on average (root-mean-square) a group's faces and a candidate's may lie for the candidate
    /// to be suggested: one step past ``reach``, as far past it as ``reach`` is past the threshold. What
    /// clustering left apart lies past the threshold (or past ``reach``), so suggestions look a little further.
    public var suggestionReach: Float { reach + (reach - threshold) }

    /// The groups and lone faces that clustering left apart from `group` but most likely show the same
    /// person, nearest first (ties to the lower face): of those whose faces lie within ``suggestionReach`` of
    /// the group's on average, the `candidates` nearest so (ties to the lower face), ranked by
    /// ``Suggestion/distance``. `groups` holds each face's group, or nil for a face in none; a group with no
    /// faces has no suggestions. Only the group's and the candidates' faces are searched for their nearest
    /// faces, so a person's page costs their faces and their candidates', not the library's.
    public func suggestions(
        for group: Int, of embeddings: [Float], length: Int, groups: [Int?], candidates: Int = 32,
        context: RenderContext
    ) throws(RecognitionError) -> [Suggestion] {
        guard candidates >= 1 else { throw .invalidParameters("\(candidates) candidates to weigh") }
        let count = try faceCount(of: embeddings, length: length, groups: groups)
        guard groups.count == count, let first = groups.firstIndex(of: group) else { return [] }
        var clusterGroups = ClusterGroups(
            embeddings: embeddings, length: length, start: Start(groups: groups), faceNeighbours: faceNeighbours)
        let target = clusterGroups.root(of: first), farthest = Double(suggestionReach) * Double(suggestionReach)
        let candidates = Set(
            clusterGroups.roots.filter { $0 != target }.map { (squared: clusterGroups.linkage(target, $0), root: $0) }
                .filter { $0.squared < farthest }.sorted { ($0.squared, $0.root) < ($1.squared, $1.root) }
                .prefix(candidates).map(\.root))
        let searched = (0..<count).filter {
            let root = clusterGroups.root(of: $0)
            return root == target || candidates.contains(root)
        }
        clusterGroups.link(try nearestFaces(of: embeddings, length: length, searched: searched, context: context))
        return candidates.map { root in
            let distance =
                max(0, clusterGroups.linkage(target, root)).squareRoot() / (1 + clusterGroups.linkShare(target, root))
            return (
                root, Suggestion(candidate: groups[root].map(Candidate.group) ?? .face(root), distance: Float(distance))
            )
        }
        .sorted { ($0.1.distance, $0.0) < ($1.1.distance, $1.0) }
        .map(\.1)
    }
}
