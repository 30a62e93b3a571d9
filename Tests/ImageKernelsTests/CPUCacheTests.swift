import BenchmarkSupport
import ImageKernels
import Testing

@Suite struct CPUCacheTests {
    /// A twin that fetches a region a part a step must fetch all of it, each line once.
    @Test func partsCoverEachLineOnceInOrder() {
        var generator = SeededGenerator()
        let sizes =
            [1, 63, 64, 65, 3_776, 16_384] + (0..<20).map { _ in Int.random(in: 1...100_000, using: &generator) }
        for byteCount in sizes {
            for parts in [1, 3, 7, 59, 64, 1_000] {
                let ranges = (0..<parts).map { CPUCache.lines(part: $0, of: parts, byteCount: byteCount) }
                let lines = (byteCount + CPUCache.lineBytes - 1) / CPUCache.lineBytes
                let context = "\(byteCount) bytes, \(parts) parts, seed \(generator.seed)"
                #expect(ranges.flatMap { Array($0) } == Array(0..<lines), "\(context)")
                #expect(ranges.allSatisfy { $0.count <= ranges[0].count }, "\(context)")
            }
        }
    }
}
