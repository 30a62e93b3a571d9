import FaceRecognition
import Foundation
import GRDB

/// One file the indexer has seen: where, which version of it (size, modification time, content hash),
/// and whether it was indexed or failed, with the reason.
public struct ImageRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "images"
    public enum Status: String, Codable, Sendable { case indexed, failed }

    public var id: Int64?
    public var path: String
    public var size: Int64
    public var modified: Double
    public var hash: String
    public var width: Int
    public var height: Int
    public var status: Status
    public var error: String?

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension ImageRecord {
    /// The columns ``init(row:)`` reads, in its order.
    static let columns = "id, path, size, modified, hash, width, height, status, error"

    /// A record from a row of ``columns``.
    init(row: StoreRow) throws(CatalogError) {
        let status: String = try row.get(7)
        guard let known = Status(rawValue: status) else {
            throw .storage(path: Self.databaseTableName, reason: "an image of status \(status.debugDescription)")
        }
        (id, path, size, modified, hash) = (
            try row.get(0), try row.get(1), try row.get(2), try row.get(3), try row.get(4)
        )
        (width, height, self.status, error) = (try row.get(5), try row.get(6), known, try row.get(8))
    }
}

/// One face of an indexed image: its box, lean and eyes in the original image's pixels, its LBP descriptor
/// (with the parameters that made it), its 128-d embedding (dlib's ResNet; nil in databases indexed
/// before embeddings, until `index` adds it), a small JPEG thumbnail of the aligned crop, and its person.
public struct FaceRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "faces"

    public var id: Int64?
    public var imageID: Int64
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public var angle: Double
    public var leftEyeX: Double?
    public var leftEyeY: Double?
    public var rightEyeX: Double?
    public var rightEyeY: Double?
    public var neighbours: Int
    /// `DescriptorParameters` as JSON, and the descriptor in its stored form (`FaceDescriptor.encoded()`:
    /// counts, about 6 KB). Stored in a table of their own (`face_descriptors`), narrow so that a new
    /// process reads every descriptor at once.
    public var parameters = ""
    public var descriptor = Data()
    public var thumbnail: Data
    /// The embedding as little-endian Float32. Stored in a table of its own (`face_embeddings`), narrow so
    /// that a new process reads every embedding at once.
    public var embedding: Data? = nil
    /// The person the face belongs to, if any: its name is the face's name.
    public var personID: Int64?
    /// How the face came to its person, or to none; nil until clustering has seen it.
    public var assignment: FaceAssignment?

    enum CodingKeys: String, CodingKey {
        case id
        case imageID = "image_id"
        case x, y, width, height, angle
        case leftEyeX = "left_eye_x"
        case leftEyeY = "left_eye_y"
        case rightEyeX = "right_eye_x"
        case rightEyeY = "right_eye_y"
        case neighbours, thumbnail
        case personID = "person_id"
        case assignment
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The stored embedding, or nil when the face has none yet.
    public func faceEmbedding() throws(CatalogError) -> [Float]? {
        try embedding.map { data throws(CatalogError) in try Self.embedding(face: id ?? -1, data) }
    }

    /// A stored embedding blob read back.
    static func embedding(face: Int64, _ data: Data) throws(CatalogError) -> [Float] {
        guard data.count == FaceEmbedder.length * 4 else {
            throw .storage(
                path: "faces",
                reason: "face \(face): an embedding of \(data.count) bytes, not \(FaceEmbedder.length * 4)")
        }
        return [Float](littleEndianBytes: data)
    }

    /// A stored embedding read back, checked for its length.
    static func embedding(face: Int64, _ values: [Float]) throws(CatalogError) -> [Float] {
        guard values.count == FaceEmbedder.length else {
            throw .storage(
                path: "faces",
                reason: "face \(face): an embedding of \(values.count) values, not \(FaceEmbedder.length)")
        }
        return values
    }

    /// The stored descriptor, checked against its parameters.
    public func faceDescriptor() throws(CatalogError) -> FaceDescriptor {
        try Self.descriptor(
            face: id ?? -1, parameters: try Self.parameters(face: id ?? -1, parameters), stored: descriptor)
    }

    /// Stored descriptor parameters read back.
    static func parameters(face: Int64, _ text: String) throws(CatalogError) -> DescriptorParameters {
        do { return try JSONDecoder().decode(DescriptorParameters.self, from: Data(text.utf8)) } catch {
            throw .storage(path: "faces", reason: "face \(face): unreadable descriptor parameters")
        }
    }

    /// A stored descriptor read back, checked against its parameters.
    static func descriptor(face: Int64, parameters: DescriptorParameters, stored: Data) throws(CatalogError)
        -> FaceDescriptor
    {
        do { return try FaceDescriptor(parameters: parameters, encoded: stored) } catch {
            throw .storage(path: "faces", reason: "face \(face): \(error)")
        }
    }

    /// A descriptor's parameters and histograms in their stored form.
    static func encode(_ descriptor: FaceDescriptor) throws(CatalogError) -> (parameters: String, descriptor: Data) {
        let parameters: Data
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same text for the same parameters, run after run
        do { parameters = try encoder.encode(descriptor.parameters) } catch {
            throw .processing("cannot encode descriptor parameters: \(error)")
        }
        return (String(decoding: parameters, as: UTF8.self), descriptor.encoded())
    }
}

extension FaceRecord {
    /// The columns of `faces` ``init(row:)`` reads, in its order (descriptors and embeddings are in tables of
    /// their own).
    static let columns = """
        faces.id, image_id, x, y, faces.width, faces.height, angle, left_eye_x, left_eye_y, right_eye_x, right_eye_y, \
        neighbours, thumbnail, person_id, assignment
        """

    /// A record from a row that starts with ``columns``.
    init(row: StoreRow) throws(CatalogError) {
        let assignment: String? = try row.get(14)
        self.init(
            id: try row.get(0), imageID: try row.get(1), x: try row.get(2), y: try row.get(3), width: try row.get(4),
            height: try row.get(5), angle: try row.get(6), leftEyeX: try row.get(7), leftEyeY: try row.get(8),
            rightEyeX: try row.get(9), rightEyeY: try row.get(10), neighbours: try row.get(11),
            thumbnail: try row.get(12), personID: try row.get(13),
            assignment: assignment.flatMap(FaceAssignment.init(rawValue:)))
    }
}

/// How a face came to its person: by clustering (which may change it), or by hand (which clustering never
/// changes, a face taken out of every person by hand included).
public enum FaceAssignment: String, Codable, Sendable {
    /// Clustering saw the face and left it out of every person (in a cluster below the minimum size).
    case none
    /// Clustering put the face in its person.
    case automatic
    /// Assigned by hand: to its person, or to none.
    case manual
}
