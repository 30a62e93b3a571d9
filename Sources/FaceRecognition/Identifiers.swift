/// Identifies a face in a gallery (a database row id, say).
public struct FaceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (a: FaceID, b: FaceID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "face \(rawValue)" }
}

/// Identifies the photo a face was found in.
public struct ImageID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (a: ImageID, b: ImageID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "image \(rawValue)" }
}
