import FaceRecognition
import Foundation
import GRDB
import ImageKernels

/// What a long query reports, in this order: started, progress (0…1) any number of times, then
/// completed or cancelled.
public enum QueryState<Result: Sendable>: Sendable {
    case started
    case progress(Double)
    case completed(Result)
    case cancelled
}

/// A question asked of the database. Runs as a task: cancelling the task cancels the query.
public protocol Query: Sendable {
    associatedtype Result: Sendable
    /// Runs the query, reporting its state; returns nil when cancelled.
    func run(on database: CBIRDatabase, updates: @escaping @Sendable (QueryState<Result>) -> Void) async throws -> Result?
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

/// The k stored faces and images nearest a probe face, by one matcher and weight map.
public struct FaceQuery: Query {
    public struct Result: Sendable, Codable, Equatable {
        public let faces: [FaceHit]
        public let images: [ImageHit]
    }

    public let probe: FaceDescriptor
    public let options: SearchOptions
    public let count: Int

    public init(probe: FaceDescriptor, matcher: Matcher = .nbnn, weights: WeightMap = .reference, count: Int = 10) {
        self.probe = probe
        options = SearchOptions(matcher: matcher, weights: weights)
        self.count = count
    }

    /// Searches the stored faces on the database's context.
    public func run(on database: CBIRDatabase, updates: @escaping @Sendable (QueryState<Result>) -> Void) async throws -> Result? {
        guard let gallery = try database.searchGallery(for: probe, updates: updates) else { return nil }
        var collector = BothCollectors(TopFaces(count), TopImages(count))
        try gallery.search(probe, options: options, into: &collector)
        let faces = try database.hits(collector.first.matches)
        let paths = try database.paths(of: collector.second.matches.map(\.image.rawValue))
        let images = collector.second.matches.compactMap { match in
            paths[match.image.rawValue].map {
                ImageHit(image: match.image.rawValue, path: $0, distance: match.distance, bestFace: match.bestFace.rawValue)
            }
        }
        let result = Result(faces: faces, images: images)
        updates(.completed(result))
        return result
    }
}

extension CBIRDatabase {
    /// The stored faces' gallery brought up to date for a query, which it reports started and half done;
    /// nil, reported cancelled, when the query's task was cancelled meanwhile.
    nonisolated func searchGallery<Result>(for probe: FaceDescriptor,
                                           updates: (QueryState<Result>) -> Void) throws(DatabaseError) -> Gallery? {
        updates(.started)
        let gallery = try galleries.gallery(of: self, parameters: probe.parameters)
        updates(.progress(0.5))
        guard !Task.isCancelled else {
            updates(.cancelled)
            return nil
        }
        return gallery
    }

    /// The stored faces that matched, with their images' paths and labels, in the matches' order.
    nonisolated func hits(_ matches: [FaceMatch]) throws(DatabaseError) -> [FaceHit] {
        let store = try faceIndexer().store
        return try read { db in try store.hits(matches, db) }
    }
}
