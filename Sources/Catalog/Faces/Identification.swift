import FaceRecognition
import GRDB
import ImageKernels

/// Who a probe face is: the label of its nearest labelled face, as OpenCV's LBPH recogniser predicts,
/// or unknown when even that face is further than a threshold. Naming more faces changes the answer at
/// once; nothing is retrained.
public struct Identification: Query {
    public struct Result: Sendable, Codable, Equatable {
        /// The nearest labelled face's label, or nil (unknown) beyond the threshold or with no labels.
        public let name: String?
        /// The nearest labelled face, whatever its distance.
        public let nearest: FaceHit?
    }

    /// Distances above this are unknown faces, per matcher: dlib's 0.6 for embeddings; for the LBP
    /// matchers with the default weights and descriptor 75: in the wild photos, with train/ labelled, the
    /// test faces named right lie at 68.9–73.2 and a stranger (misc/lin-manuel-miranda.png) at 76.7 (docs/guide.md,
    /// "Indexing, searching and naming faces").
    public static func defaultThreshold(for matcher: Matcher) -> Float {
        matcher == .embedding ? 0.6 : 75
    }

    public let probe: FaceDescriptor
    public let embedding: [Float]?
    public let options: SearchOptions
    public let threshold: Float

    /// `matcher` compares faces one by one: embeddings, NBNN per face or weighted chi-square; `threshold`
    /// defaults to the matcher's.
    public init(
        probe: FaceDescriptor, embedding: [Float]? = nil, matcher: Matcher = .embedding,
        weights: WeightMap = .reference,
        threshold: Float? = nil
    ) throws(CatalogError) {
        guard !matcher.ranksImages else {
            throw .invalidQuery(
                """
                identify compares faces one by one: use \(Matcher.embedding.rawValue), \
                \(Matcher.nbnnPerFace.rawValue) \
                or \(Matcher.weightedChiSquare.rawValue), not \(matcher.rawValue)
                """
            )
        }
        self.probe = probe
        self.embedding = embedding
        options = SearchOptions(matcher: matcher, weights: weights)
        self.threshold = threshold ?? Self.defaultThreshold(for: matcher)
    }

    /// Searches the labelled faces on `context`.
    public func run(
        on catalog: Catalog, context: RenderContext, updates: @escaping @Sendable (QueryState<Result>) -> Void
    ) async throws -> Result? {
        let labelled = try catalog.reading { [store = catalog.store] connection in
            try store.labelledFaces(connection)
        }
        var collector = NearestAmong(faces: labelled)
        if labelled.isEmpty {
            updates(.started)
        } else {
            guard
                try catalog.search(
                    probe, embedding: embedding, options: options, top: 1, among: FaceStore.labelledFacesQuery,
                    context: context, into: &collector, updates: updates)
            else {
                return nil
            }
        }
        let nearest = try catalog.hits(collector.nearest.map { [$0] } ?? []).first
        let result = Result(name: nearest.flatMap { $0.distance <= threshold ? $0.label : nil }, nearest: nearest)
        updates(.completed(result))
        return result
    }
}

/// Keeps the nearest face among some faces.
struct NearestAmong: MatchCollector {
    let faces: Set<Int64>
    private(set) var nearest: FaceMatch?

    init(faces: Set<Int64>) {
        self.faces = faces
    }

    mutating func collect(_ match: FaceMatch) {
        guard faces.contains(match.face.rawValue) else { return }
        if let nearest, (nearest.distance, nearest.face) <= (match.distance, match.face) { return }
        nearest = match
    }
}
