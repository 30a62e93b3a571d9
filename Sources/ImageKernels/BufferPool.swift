/// Device buffers kept for reuse, by size, up to a byte budget. A render's intermediate buffers serve
/// later renders of the same sizes; once the pool outgrows its budget, the sizes asked for least
/// recently are let go. (Unbounded, a gallery of photos of many sizes kept every size it ever used:
/// indexing ran out of memory after 1,600 photos.)
struct BufferPool {
    let budget: Int
    private var buffers: [Int: [any DeviceBuffer]] = [:]
    private var lastUse: [Int: Int] = [:]
    private var clock = 0
    /// Bytes held.
    private(set) var bytes = 0

    init(budget: Int) {
        self.budget = budget
    }

    /// A pooled buffer of exactly `byteCount` bytes, if there is one.
    mutating func take(byteCount: Int) -> (any DeviceBuffer)? {
        clock += 1
        lastUse[byteCount] = clock
        guard let buffer = buffers[byteCount]?.popLast() else { return nil }
        bytes -= byteCount
        return buffer
    }

    mutating func give(_ buffer: any DeviceBuffer) {
        clock += 1
        lastUse[buffer.byteCount] = clock
        buffers[buffer.byteCount, default: []].append(buffer)
        bytes += buffer.byteCount
    }

    /// Lets go of the least recently used sizes until the pool is within its budget.
    mutating func trim() {
        guard bytes > budget else { return }
        let oldestFirst = buffers.keys.sorted { lastUse[$0, default: 0] < lastUse[$1, default: 0] }
        for size in oldestFirst where bytes > budget {
            bytes -= size * (buffers[size]?.count ?? 0)
            buffers[size] = nil
            lastUse[size] = nil
        }
    }

    mutating func removeAll() {
        buffers = [:]
        lastUse = [:]
        bytes = 0
    }
}
