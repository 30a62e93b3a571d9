import FaceDetection
import Foundation
import ImageKernels

/// What `cbir serve` serves and how: the database, the address, the token that guards it, the upload cap
/// and the device.
public struct ServerConfiguration: Sendable {
    /// The database file, or the PostgreSQL catalog's URL.
    public var database: String
    /// A streaming replica of a PostgreSQL catalog's server to read from (its URL), or nil: reads go there while
    /// it is fresh, to the primary otherwise; writes always go to the primary.
    public var readReplica: String?
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
    /// How long a connection may stay silent (idle between requests, or stalled halfway through one)
    /// before the server closes it.
    public var idleTimeout: Duration

    public init(
        database: String = "cbir.sqlite", host: String = "127.0.0.1", port: Int = 8080, token: String? = nil,
        uploadLimit: Int = 20 << 20, context: RenderContext? = nil, detector: DetectorChoice = .default,
        readOnly: Bool = false, idleTimeout: Duration = .seconds(30), readReplica: String? = nil
    ) {
        self.database = database
        self.readReplica = readReplica
        self.host = host
        self.port = port
        self.token = token
        self.uploadLimit = uploadLimit
        self.context = context
        self.detector = detector
        self.readOnly = readOnly
        self.idleTimeout = idleTimeout
    }

    /// Whether `host` is a loopback address, which only this machine reaches.
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// The bits a token holds by the spread of its characters (its length times their entropy): a measure
    /// that finds what a person types when asked for a secret ("aaaaaaaaaaaaaaaa", "abababab…") weak, and
    /// what a generator makes (`openssl rand -hex 16`: about 120 bits) strong.
    static func bits(of token: String) -> Double {
        let counts = Dictionary(token.unicodeScalars.map { ($0, 1) }, uniquingKeysWith: +).values
        let length = Double(token.unicodeScalars.count)
        return counts.reduce(0) { bits, count in bits - Double(count) * log2(Double(count) / length) }
    }

    /// Whether a token is long and random enough to stand guessing: 16 characters or more, no spaces, and
    /// at least ``minimumTokenBits`` by ``bits(of:)``.
    static func isStrong(_ token: String) -> Bool {
        token.unicodeScalars.count >= 16 && !token.contains(where: \.isWhitespace)
            && bits(of: token) >= minimumTokenBits
    }

    static let minimumTokenBits = 64.0

    /// Whether a host name or address names this machine's loopback: `localhost`, 127.0.0.0/8 or ::1.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" { return true }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        return bytes == [UInt8](repeating: 0, count: 15) + [1]
            || (bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] && bytes[12] == 127)
    }

    /// Refuses what would expose the photos: another address without a token, a token easy to guess.
    public func validate() throws(ServerError) {
        if let token, !Self.isStrong(token) { throw .weakToken }
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
        case .weakToken:
            "the token must be at least 16 characters without spaces, and random, not repeated characters "
                + "(openssl rand -hex 16 makes one)"
        case .invalidPort(let port): "no such port: \(port)"
        }
    }
}
