import BenchmarkSupport
import Foundation
import ImageKernels
import PhotoSimilarity
import TestSupport
import Testing

/// Close print pairs against a plain comparison of every pair, on random prints in clusters (one of them
/// larger than the neighbour kernel's list, so that the search must look past it), on each device; thousands
/// of them too, which the search screens by stand-ins first.
@Suite struct ClosePrintsTests {
    @Test(arguments: 0..<PerceptualHashTests.devices.count, [150...400, 4096...4400])
    func pairsAreEveryPairWithinTheThreshold(_ index: Int, counts: ClosedRange<Int>) throws {
        let (name, device, schedules) = PerceptualHashTests.devices[index]
        let context = RenderContext(device: try #require(device), fallsBack: false)
        context.useSchedules(of: schedules)
        var generator = SeededGenerator()
        let length = PhotoPrinter.length
        // Cluster centres, about one for every 20 prints, and prints scattered around them; cluster 0 holds 80
        // close prints.
        let count = Int.random(in: counts, using: &generator)
        let centres = (0..<Int.random(in: count / 30...count / 15, using: &generator)).map { _ in
            (0..<length).map { _ in Float.random(in: -1...1, using: &generator) }
        }
        let prints: [Float] = (0..<count).flatMap { item in
            let centre = centres[item < 80 ? 0 : Int.random(in: 0..<centres.count, using: &generator)]
            let spread = Float.random(in: item < 80 ? 0.02...0.2 : 0.05...0.6, using: &generator)
            let print = centre.map { $0 + spread * Float.random(in: -1...1, using: &generator) }
            let norm = print.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return print.map { $0 / norm }
        }
        let threshold = Float.random(in: 0.05...0.2, using: &generator)
        let distances = Self.allDistances(prints, count: count)
        func distance(_ a: Int, _ b: Int) -> Float { distances[a * count + b] }
        // Pairs within a rounding error of the threshold may fall either way.
        let expected = (0..<count).flatMap { a in
            (a + 1..<count).filter { abs(distance(a, $0) - threshold) > 1e-5 && distance(a, $0) <= threshold }
                .map { (a, $0) }
        }
        let found = try ClosePrints.pairs(in: prints, count: count, threshold: threshold, context: context)
        let foundSet = Set(found.map { $0.0 * count + $0.1 }), expectedSet = Set(expected.map { $0.0 * count + $0.1 })
        let about = "\(count) prints, threshold \(threshold) on \(name), seed \(generator.seed)"
        #expect(expected.count > 80 * 79 / 2, "the test's clusters are too loose: \(about)")
        #expect(expectedSet.isSubset(of: foundSet), "pairs missed: \(about)")
        #expect(found.allSatisfy { $0.0 < $0.1 } && foundSet.count == found.count, "pairs out of order: \(about)")
        for (a, b) in found where !expectedSet.contains(a * count + b) {
            #expect(distance(a, b) <= threshold + 1e-5, "\(a), \(b) at \(distance(a, b)): \(about)")
        }
    }

    /// Every pair's cosine distance, row by row, in vectors of eight over the cores.
    static func allDistances(_ prints: [Float], count: Int) -> [Float] {
        let length = PhotoPrinter.length
        var distances = [Float](repeating: 0, count: count * count)
        distances.withUnsafeMutableBufferPointer { distances in
            prints.withUnsafeBytes { prints in
                nonisolated(unsafe) let (distances, prints) = (distances, prints)
                DispatchQueue.concurrentPerform(iterations: count) { a in
                    for b in 0..<count {
                        var sums = SIMD8<Float>()
                        for i in stride(from: 0, to: length, by: 8) {
                            sums.addProduct(
                                prints.loadUnaligned(fromByteOffset: (a * length + i) * 4, as: SIMD8<Float>.self),
                                prints.loadUnaligned(fromByteOffset: (b * length + i) * 4, as: SIMD8<Float>.self))
                        }
                        distances[a * count + b] = 1 - sums.sum()
                    }
                }
            }
        }
        return distances
    }

    @Test func refusesAThresholdOutOfRange() {
        let prints = [Float](repeating: 0, count: 2 * PhotoPrinter.length)
        for threshold in [Float.nan, -0.1, 2.5, .infinity] {
            #expect(throws: PhotoError.self) {
                try ClosePrints.pairs(in: prints, count: 2, threshold: threshold, context: RenderContext(device: .cpu))
            }
        }
    }
}
