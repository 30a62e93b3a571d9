import FaceRecognition
import Foundation
import GRDB
import ImageKernels
import NeuralNetworks

/// What a long query reports, in this order: started, progress (0…1) any number of times, then
/// completed or cancelled.
public enum QueryState<Result: Sendable>: Sendable {
    case started
    case progress(Double)
    case completed(Result)
    case cancelled
}

/// A question asked of the catalog, on a device. Runs as a task: cancelling the task cancels the query.
public protocol Query: Sendable {
    associatedtype Result: Sendable
    /// Runs the query on `context`, reporting its state; returns nil when cancelled.
    func run(on catalog: Catalog, context: RenderContext, updates: @escaping @Sendable (QueryState<Result>) -> Void)
        async throws -> Result?
}

/// A stored face that matched, nearest first.
public struct FaceHit: Sendable, Codable, Equatable {
    public let face: Int64
    public let image: Int64
    public let path: String
    public let distance: Float
    public let x, y, width, height: Int
    public let label: String?
}

/// A stored image that matched, by its nearest face (or, for NBNN, its image-to-class distance).
public struct ImageHit: Sendable, Codable, Equatable {
    public let image: Int64
    public let path: String
    public let distance: Float
    public let bestFace: Int64
}

/// The k stored faces and images nearest a probe face, by one matcher (and, for the LBP matchers, one
/// weight map).
public struct FaceQuery: Query {
    public struct Result: Sendable, Codable, Equatable {
        public let faces: [FaceHit]
        public let images: [ImageHit]
    }

    public let probe: FaceDescriptor
    /// The probe's embedding, which the embedding matcher needs.
    public let embedding: [Float]?
    public let options: SearchOptions
    public let count: Int

    /// `radius` makes nbnn and nbnn-face neighbourhood NBNN (see `SearchOptions.radius`).
    public init(
        probe: FaceDescriptor, embedding: [Float]? = nil, matcher: Matcher = .embedding,
        weights: WeightMap = .reference,
        radius: Int? = nil, count: Int = 10
    ) {
        self.probe = probe
        self.embedding = embedding
        options = SearchOptions(matcher: matcher, weights: weights, radius: radius)
        self.count = count
    }

    /// Searches the stored faces on `context`.
    public func run(
        on catalog: Catalog, context: RenderContext, updates: @escaping @Sendable (QueryState<Result>) -> Void
    ) async throws -> Result? {
        var collector = BothCollectors(TopFaces(count), TopImages(count))
        guard
            try catalog.search(
                probe, embedding: embedding, options: options, top: count, context: context, into: &collector,
                updates: updates)
        else {
            return nil
        }
        let faces = try catalog.hits(collector.first.matches)
        let paths = try catalog.paths(of: collector.second.matches.map(\.image.rawValue))
        let images = collector.second.matches.compactMap { match in
            paths[match.image.rawValue].map {
                ImageHit(
                    image: match.image.rawValue, path: $0, distance: match.distance, bestFace: match.bestFace.rawValue)
            }
        }
        let result = Result(faces: faces, images: images)
        updates(.completed(result))
        return result
    }
}

extension Catalog {
    /// Searches the stored faces on `context` with the probe's LBP descriptor or embedding, as the matcher needs, into
    /// `collector`, reporting the query started and half done once the gallery is up to date; false,
    /// reported cancelled, when the query's task was cancelled meanwhile. The collector keeps the `top` nearest
    /// faces, among those `filter` returns where it is given (the faces an index is asked for candidates among).
    nonisolated func search<Result, Collector: MatchCollector>(
        _ probe: FaceDescriptor, embedding: [Float]?, options: SearchOptions, top: Int, among filter: String? = nil,
        context: RenderContext, into collector: inout Collector,
        updates: (QueryState<Result>) -> Void
    ) throws -> Bool {
        updates(.started)
        if options.matcher == .embedding {
            guard let embedding else {
                throw CatalogError.invalidQuery(
                    "the probe face has no embedding: index with the embedding models (\(ModelCache.setupCommand))")
            }
            let gallery =
                try candidateGallery(.faceEmbeddings, near: [embedding], top: top, among: filter, context: context)
                ?? galleries.embeddingGallery(of: self, context: context)
            guard proceeds(updates) else { return false }
            try gallery.search(embedding, into: &collector)
        } else {
            let gallery = try galleries.gallery(of: self, parameters: probe.parameters, context: context)
            guard proceeds(updates) else { return false }
            try gallery.search(probe, options: options, into: &collector)
        }
        return true
    }

    /// Reports half done, or cancelled when the task was cancelled (then false).
    private nonisolated func proceeds<Result>(_ updates: (QueryState<Result>) -> Void) -> Bool {
        updates(.progress(0.5))
        guard !Task.isCancelled else {
            updates(.cancelled)
            return false
        }
        return true
    }

    /// The stored faces that matched, with their images' paths and labels, in the matches' order.
    nonisolated func hits(_ matches: [FaceMatch]) throws(CatalogError) -> [FaceHit] {
        try reading { [store] connection in try store.hits(matches, connection, localPath: localPath) }
    }
}
