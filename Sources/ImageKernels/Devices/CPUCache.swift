import CPUCacheHints

/// Hints for CPU twins that read memory in an order the hardware cannot guess.
public enum CPUCache {
    /// The bytes the hints act on at a time.
    public static let lineBytes = 64

    /// Starts bringing the cache line at `address` close to the core, so that a later read finds it there.
    /// Unlike a read it does not hold the core up while memory answers, and it never faults.
    @inlinable @inline(__always)
    public static func prefetch(_ address: UnsafeRawPointer) { cpu_cache_prefetch_for_reading(address) }

    /// Starts bringing part `part` of `parts` of the `byteCount` bytes at `address` close to the core: a twin
    /// that works through something else in that many steps fetches the region it reads next, a part a step.
    @inlinable
    public static func prefetch(part: Int, of parts: Int, of address: UnsafeRawPointer, byteCount: Int) {
        for line in lines(part: part, of: parts, byteCount: byteCount) { prefetch(address + line * lineBytes) }
    }

    /// The cache lines of part `part` of `parts` of a region of `byteCount` bytes: together the parts cover
    /// each line once, in order, each as many lines as the first, but for the last ones (fewer, or none).
    @inlinable
    public static func lines(part: Int, of parts: Int, byteCount: Int) -> Range<Int> {
        let lines = (byteCount + lineBytes - 1) / lineBytes, perPart = (lines + parts - 1) / max(parts, 1)
        return min(part * perPart, lines)..<min((part + 1) * perPart, lines)
    }
}
