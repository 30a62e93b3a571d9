import Foundation

/// The memory the decoders may hold at once in the whole process. A decode reserves what its buffers take
/// (known from the header: the full-size samples of a PNG or PNM, the DCT-scaled ones of a JPEG) before it
/// allocates them, and waits while other decodes hold the rest. A file that needs more than all of it is
/// refused: the pixel limit alone would let a 97 KB PNG claim 400 MB, and a machine decoding such files
/// side by side on every core would hold several times that.
public final class DecodingMemory: @unchecked Sendable {
    /// The budget every decoder shares: a quarter of the machine's memory, at most 1 GiB.
    public static let shared = DecodingMemory(capacity: min(1 << 30, Int(ProcessInfo.processInfo.physicalMemory / 4)))

    /// Bytes the decodes in flight may hold together, and the most one may need.
    public let capacity: Int
    private let condition = NSCondition()
    private var reserved = 0

    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// Runs `body` with `bytes` reserved for the decode of the file at `path`, waiting until they fit; an
    /// error when they never could.
    public func reserving<Result>(
        _ bytes: Int, for path: String,
        _ body: () throws(ImageCodecError) -> Result
    ) throws(ImageCodecError) -> Result {
        guard bytes <= capacity else { throw .tooLargeToDecode(path: path, bytes: bytes, limit: capacity) }
        condition.lock()
        while reserved + bytes > capacity { condition.wait() }
        reserved += bytes
        condition.unlock()
        defer {
            condition.lock()
            reserved -= bytes
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
