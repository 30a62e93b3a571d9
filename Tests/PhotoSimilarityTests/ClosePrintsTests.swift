import BenchmarkSupport
import ImageKernels
import PhotoSimilarity
import TestSupport
import Testing

/// Close print pairs against a plain comparison of every pair, on random prints in clusters (one of them
/// larger than the neighbour kernel's list, so that the search must look past it), on each device.
@Suite struct ClosePrintsTests {
    @Test(arguments: 0..<PerceptualHashTests.devices.count)
    func pairsAreEveryPairWithinTheThreshold(_ index: Int) throws {
        let (name, device, schedules) = PerceptualHashTests.devices[index]
        let context = RenderContext(device: try #require(device), fallsBack: false)
        context.useSchedules(of: schedules)
        var generator = SeededGenerator()
        let length = PhotoPrinter.length
        // Cluster centres, and prints scattered around them; cluster 0 holds 80 close prints.
        let centres = (0..<Int.random(in: 5...20, using: &generator)).map { _ in
            (0..<length).map { _ in Float.random(in: -1...1, using: &generator) }
        }
        let count = Int.random(in: 150...400, using: &generator)
        let prints: [Float] = (0..<count).flatMap { item in
            let centre = centres[item < 80 ? 0 : Int.random(in: 0..<centres.count, using: &generator)]
            let spread = Float.random(in: item < 80 ? 0.02...0.2 : 0.05...0.6, using: &generator)
            let print = centre.map { $0 + spread * Float.random(in: -1...1, using: &generator) }
            let norm = print.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return print.map { $0 / norm }
        }
        let threshold = Float.random(in: 0.05...0.2, using: &generator)
        var expected: [(Int, Int)] = []
        for a in 0..<count {
            for b in a + 1..<count {
                let dot = (0..<length).reduce(Float(0)) { $0 + prints[a * length + $1] * prints[b * length + $1] }
                // Pairs within a rounding error of the threshold may fall either way.
                if abs(1 - dot - threshold) > 1e-5, 1 - dot <= threshold { expected.append((a, b)) }
            }
        }
        let found = try ClosePrints.pairs(in: prints, count: count, threshold: threshold, context: context)
        let foundSet = Set(found.map { $0.0 * count + $0.1 }), expectedSet = Set(expected.map { $0.0 * count + $0.1 })
        let about = "\(count) prints, threshold \(threshold) on \(name), seed \(generator.seed)"
        #expect(expected.count > 80 * 79 / 2, "the test's clusters are too loose: \(about)")
        #expect(expectedSet.isSubset(of: foundSet), "pairs missed: \(about)")
        #expect(found.allSatisfy { $0.0 < $0.1 } && foundSet.count == found.count, "pairs out of order: \(about)")
        for (a, b) in found where !expectedSet.contains(a * count + b) {
            let dot = (0..<length).reduce(Float(0)) { $0 + prints[a * length + $1] * prints[b * length + $1] }
            #expect(1 - dot <= threshold + 1e-5, "\(a), \(b) at \(1 - dot): \(about)")
        }
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
