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

    /// Distances above this are unknown faces, for the default matcher, weights and descriptor: in the
    /// wild photos, with train/ labelled, the test faces named right lie at 68.9–73.2 and a stranger
    /// (misc/lin-manuel-miranda.png) at 76.7 (README, "Labels and identify").
    public static let defaultThreshold: Float = 75

    public let probe: FaceDescriptor
    public let options: SearchOptions
    public let threshold: Float

    /// `matcher` compares faces one by one: NBNN per face or weighted chi-square.
    public init(probe: FaceDescriptor, matcher: Matcher = .nbnnPerFace, weights: WeightMap = .reference,
                threshold: Float = Self.defaultThreshold) throws(DatabaseError) {
        guard !matcher.ranksImages else {
            throw .invalidQuery("identify compares faces one by one: use \(Matcher.nbnnPerFace.rawValue) or \(Matcher.weightedChiSquare.rawValue), not \(matcher.rawValue)")
        }
        self.probe = probe
        options = SearchOptions(matcher: matcher, weights: weights)
        self.threshold = threshold
    }

    /// Searches the labelled faces on the database's context.
    public func run(on database: CBIRDatabase, updates: @escaping @Sendable (QueryState<Result>) -> Void) async throws -> Result? {
        let store = try database.faceIndexer().store
        let labelled = try database.read { db in try store.labelledFaces(db) }
        guard let gallery = try database.searchGallery(for: probe, updates: updates) else { return nil }
        var collector = NearestAmong(faces: labelled)
        if !labelled.isEmpty { try gallery.search(probe, options: options, into: &collector) }
        let nearest = try database.hits(collector.nearest.map { [$0] } ?? []).first
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
