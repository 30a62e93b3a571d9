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
    public let context: RenderContext

    public init(probe: FaceDescriptor, matcher: Matcher = .weightedChiSquare, weights: WeightMap = .uniform(), count: Int = 10,
                context: RenderContext = RenderContext()) {
        self.probe = probe
        options = SearchOptions(matcher: matcher, weights: weights)
        self.count = count
        self.context = context
    }

    public func run(on database: CBIRDatabase, updates: @escaping @Sendable (QueryState<Result>) -> Void) async throws -> Result? {
        updates(.started)
        let stored = try database.read { db in try FaceRecord.fetchAll(db) }
        let paths = try database.read { db in
            Dictionary(uniqueKeysWithValues: try ImageRecord.fetchAll(db).compactMap { record in record.id.map { ($0, record.path) } })
        }
        let gallery = Gallery(parameters: probe.parameters, context: context)
        var batch: [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)] = []
        for (index, record) in stored.enumerated() {
            if Task.isCancelled {
                updates(.cancelled)
                return nil
            }
            guard let id = record.id else { continue }
            let descriptor = try record.faceDescriptor()
            guard descriptor.parameters == probe.parameters else {
                throw DatabaseError.mismatch("face \(id) was described with \(descriptor.parameters), the probe with \(probe.parameters)")
            }
            batch.append((descriptor, FaceID(id), ImageID(record.imageID)))
            if batch.count == 256 || index == stored.count - 1 {
                try gallery.append(batch)
                batch.removeAll(keepingCapacity: true)
                updates(.progress(Double(index + 1) / Double(max(stored.count, 1)) * 0.9))
            }
        }
        var collector = BothCollectors(TopFaces(count), TopImages(count))
        if !stored.isEmpty { try gallery.search(probe, options: options, into: &collector) }
        let records = Dictionary(uniqueKeysWithValues: stored.compactMap { record in record.id.map { ($0, record) } })
        let faces = collector.first.matches.compactMap { match -> FaceHit? in
            guard let record = records[match.face.rawValue] else { return nil }
            return FaceHit(face: match.face.rawValue, image: record.imageID, path: paths[record.imageID] ?? "?", distance: match.distance,
                           x: record.x, y: record.y, width: record.width, height: record.height, label: record.label)
        }
        let images = collector.second.matches.map { match in
            ImageHit(image: match.image.rawValue, path: paths[match.image.rawValue] ?? "?", distance: match.distance,
                     bestFace: match.bestFace.rawValue)
        }
        let result = Result(faces: faces, images: images)
        updates(.completed(result))
        return result
    }
}
