import Foundation
import Synchronization

/// The sign-ins of a server with a token: each a random value, handed to the browser in a cookie in place
/// of the token itself, so that the token never sits in a browser's cookie store. They last until the server
/// stops; beyond ``limit`` the oldest is forgotten.
final class Sessions: Sendable {
    static let limit = 1000
    private let open = Mutex<(order: [String], values: Set<String>)>(([], []))

    /// A new sign-in's value: 32 random bytes in hex.
    func start() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
        open.withLock { open in
            open.order.append(value)
            open.values.insert(value)
            while open.order.count > Self.limit { open.values.remove(open.order.removeFirst()) }
        }
        return value
    }

    /// Whether `value` is a sign-in this server handed out.
    func contains(_ value: String) -> Bool {
        open.withLock { $0.values.contains(value) }
    }
}
