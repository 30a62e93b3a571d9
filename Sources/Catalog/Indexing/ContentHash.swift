/// FNV-1a over a file's bytes, 64 bits, written in hex: what indexing stores to tell a file whose bytes
/// changed from one only touched (a new modification time), and what later checks that a stored file still
/// holds the bytes that were indexed. Fed in pieces, so that a large file is hashed without holding it whole.
public struct ContentHash: Sendable {
    private var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// Adds the next bytes.
    public mutating func combine(_ bytes: some Sequence<UInt8>) {
        var value = self.value
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        self.value = value
    }

    /// The hash of what was added, in hex, as the catalog stores it.
    public var hex: String { String(value, radix: 16) }

    /// The hash of `bytes`, in hex.
    public static func of(_ bytes: some Sequence<UInt8>) -> String {
        var hash = ContentHash()
        hash.combine(bytes)
        return hash.hex
    }
}
