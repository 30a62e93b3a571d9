import Foundation
import ImageKernels

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

    /// The hash of the bytes of the open file `descriptor`, from its start to its end, read in chunks so that a
    /// large file is never held whole.
    public static func ofFile(_ descriptor: Int32) throws(RegularFile.Failure) -> String {
        var hash = ContentHash()
        var chunk = [UInt8](repeating: 0, count: IndexedFile.chunkSize)
        var offset = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .failed(String(cString: strerror(errno))) }
            guard count > 0 else { return hash.hex }
            hash.combine(chunk[..<count])
            offset += count
        }
    }
}
