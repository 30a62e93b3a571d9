import ImageKernels

/// How a probe face is compared with the gallery. Every matcher weighs probe block j by the weight
/// map's w_j and skips blocks of weight 0.
public enum Matcher: String, CaseIterable, Sendable {
    /// Σ_j w_j χ²(probe_j, face_j) per face: Ahonen's weighted chi-square, the reference FaceQuery.
    case weightedChiSquare = "weighted"
    /// Per image: Σ_j w_j min over the image's faces of χ²(probe_j, face_j).
    case restrictedNBNN = "rnbnn"
    /// Per image: Σ_j w_j min over every block of every face of the image of χ²(probe_j, block)
    /// (Maturana et al.'s Naive-Bayes nearest neighbour).
    case nbnn = "nbnn"
    /// Per face: Σ_j w_j min over the face's blocks of χ²(probe_j, block).
    case nbnnPerFace = "nbnn-face"
    /// Per face: the Euclidean distance between dlib ResNet embeddings (``FaceEmbedder``), searched in an
    /// ``EmbeddingGallery``; an image's distance is its nearest face's. Same person below 0.6.
    case embedding

    /// The matchers of LBP descriptors (every one but ``embedding``), which a ``Gallery`` searches.
    public static let descriptorMatchers: [Matcher] = allCases.filter { $0 != .embedding }

    /// Whether each probe block is compared with every gallery block, not only the one at its position.
    public var comparesAllBlocks: Bool { self == .nbnn || self == .nbnnPerFace }

    /// Whether the distance belongs to an image (nearest blocks pooled over its faces) rather than a face.
    public var ranksImages: Bool { self == .restrictedNBNN || self == .nbnn }
}

/// Which kernels compute the distances; both give the same results.
public enum SearchPath: String, CaseIterable, Sendable {
    /// One fused, tiled kernel: differences, sums and nearest-neighbour minima in one launch.
    case fused
    /// The reference design's two filters, `HistogramDifference` then `BlockSum`, minima afterwards.
    case twoKernel = "two-kernel"
}

/// What to search with.
public struct SearchOptions: Sendable {
    public var matcher: Matcher
    public var weights: WeightMap
    public var form: HistogramDifference.Form
    public var path: SearchPath
    /// For the matchers that compare every block (nbnn, nbnn-face): each probe block's candidates are the
    /// blocks within this many grid steps of its own position, a neighbourhood NBNN (0: the block itself,
    /// as restricted NBNN; nil: every block, full NBNN).
    public var radius: Int?

    public init(
        matcher: Matcher = .weightedChiSquare, weights: WeightMap = .uniform(),
        form: HistogramDifference.Form = .symmetric, path: SearchPath = .fused, radius: Int? = nil
    ) {
        self.matcher = matcher
        self.weights = weights
        self.form = form
        self.path = path
        self.radius = radius
    }

    /// The neighbourhood `radius` makes on a grid `columns` wide, if any.
    func neighbourhood(columns: Int) -> BlockNeighbourhood? {
        radius.map { BlockNeighbourhood(radius: $0, columns: columns) }
    }

    /// Whether gallery block `candidate` is compared with probe block `block` on a grid `columns` wide.
    public func compares(_ block: Int, with candidate: Int, columns: Int) -> Bool {
        guard matcher.comparesAllBlocks else { return block == candidate }
        return neighbourhood(columns: columns)?.contains(candidate, around: block) ?? true
    }
}
