import FaceDetection
import Foundation
import ImageKernels

/// What `cbir serve` serves and how: the database, the address, the token that guards it, the upload cap
/// and the device.
public struct ServerConfiguration: Sendable {
    /// The database file.
    public var database: String
    /// The address to listen on: loopback unless a token guards the server.
    public var host: String
    public var port: Int
    /// The token every request must carry (`Authorization: Bearer …`, or the cookie the sign-in page sets);
    /// nil serves without one, on loopback only.
    public var token: String?
    /// The largest upload searched, in bytes; larger ones are refused with 413.
    public var uploadLimit: Int
    /// The device to render on; nil: each kind of work on the device that runs it fastest here.
    public var context: RenderContext?
    /// The face detector for uploads.
    public var detector: DetectorChoice
    /// Serves the database read-only even where it could be written (it is where it cannot be).
    public var readOnly: Bool

    public init(
        database: String = "cbir.sqlite", host: String = "127.0.0.1", port: Int = 8080, token: String? = nil,
        uploadLimit: Int = 20 << 20, context: RenderContext? = nil, detector: DetectorChoice = .default,
        readOnly: Bool = false
    ) {
        self.database = database
        self.host = host
        self.port = port
        self.token = token
        self.uploadLimit = uploadLimit
        self.context = context
        self.detector = detector
        self.readOnly = readOnly
    }

    /// Whether `host` is a loopback address, which only this machine reaches.
    public var isLoopback: Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
    }

    /// Refuses what would expose the photos: another address without a token, a token too short to guess at.
    public func validate() throws(ServerError) {
        if let token, token.utf8.count < 16 || token.contains(where: \.isWhitespace) {
            throw .weakToken
        }
        if !isLoopback && token == nil { throw .tokenRequired(host: host) }
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
    }
}

/// Why a server does not start.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    case tokenRequired(host: String)
    case weakToken
    case invalidPort(Int)

    public var description: String {
        switch self {
        case .tokenRequired(let host):
            "refusing to serve on \(host) without a token: anyone who reaches it would see every photo; give --token"
        case .weakToken: "the token must be at least 16 characters without spaces (openssl rand -hex 16 makes one)"
        case .invalidPort(let port): "no such port: \(port)"
        }
    }
}
