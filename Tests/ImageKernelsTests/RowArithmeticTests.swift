import BenchmarkSupport
import ImageKernels
import Testing

/// The four-by-four tiles of row arithmetic against one pair at a time, to the bit: the searches that use
/// the tiles (the embeddings' search, photos' neighbour lists) must find what one pair at a time finds, at
/// lengths of whole vectors and with values past the last one.
@Suite struct RowArithmeticTests {
    @Test(arguments: [1, 7, 8, 13, 128, 1280, 1283]) func tilesAreEachPairAtATime(length: Int) {
        var generator = SeededGenerator()
        let values = (0..<8 * length).map { _ in Float.random(in: -1...1, using: &generator) }
        values.withUnsafeBufferPointer { values in
            guard let base = values.baseAddress else { return }
            func row(_ index: Int) -> UnsafePointer<Float> { base + index * length }
            let a = (row(0), row(1), row(2), row(3)), b = (row(4), row(5), row(6), row(7))
            let dots = RowArithmetic.dots(a, b, count: length)
            let distances = RowArithmetic.squaredDistances(a, b, count: length)
            for pair in 0..<16 {
                let (first, second) = (row(pair / 4), row(4 + pair % 4))
                #expect(dots[pair] == RowArithmetic.dot(first, second, count: length), "pair \(pair)")
                #expect(dots[pair] == RowArithmetic.dot(second, first, count: length), "pair \(pair), turned")
                #expect(distances[pair] == RowArithmetic.squaredDistance(first, second, count: length), "pair \(pair)")
            }
        }
    }
}
