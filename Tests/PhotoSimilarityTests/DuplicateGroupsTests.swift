import BenchmarkSupport
import PhotoSimilarity
import Testing

/// Duplicate groups against connected components found by a plain search, and the choice of the copy to keep.
@Suite struct DuplicateGroupsTests {
    @Test func groupsAreTheConnectedComponents() {
        var generator = SeededGenerator()
        let count = Int.random(in: 50...300, using: &generator)
        let pairs = (0..<Int.random(in: 0...count, using: &generator)).map { _ in
            (Int.random(in: 0..<count, using: &generator), Int.random(in: 0..<count, using: &generator))
        }
        // Breadth-first search from each item not yet seen.
        var neighbours = [[Int]](repeating: [], count: count)
        for (a, b) in pairs {
            neighbours[a].append(b)
            neighbours[b].append(a)
        }
        var seen = [Bool](repeating: false, count: count), expected: [[Int]] = []
        for start in 0..<count where !seen[start] {
            var component = [start], next = 0
            seen[start] = true
            while next < component.count {
                for other in neighbours[component[next]] where !seen[other] {
                    seen[other] = true
                    component.append(other)
                }
                next += 1
            }
            if component.count > 1 { expected.append(component.sorted()) }
        }
        #expect(
            DuplicateGroups.groups(count: count, pairs: pairs) == expected, "\(count) items, seed \(generator.seed)")
        // The order pairs come in does not matter.
        #expect(DuplicateGroups.groups(count: count, pairs: pairs.reversed()) == expected)
    }

    @Test func theCopyToKeep() {
        let original = DuplicateGroups.Copy(pixels: 640 * 480, sharpness: 100, bytes: 100_000)
        let half = DuplicateGroups.Copy(pixels: 320 * 240, sharpness: 300, bytes: 40_000)
        let reencoded = DuplicateGroups.Copy(pixels: 640 * 480, sharpness: 140, bytes: 30_000)
        let blurred = DuplicateGroups.Copy(pixels: 640 * 480, sharpness: 40, bytes: 90_000)
        let copies = [half, reencoded, blurred, original]
        #expect(DuplicateGroups.best(of: [0, 1, 2, 3], copies: copies) == 3)
        #expect(DuplicateGroups.best(of: [0, 1], copies: copies) == 1, "more pixels win")
        #expect(DuplicateGroups.best(of: [1, 2], copies: copies) == 2, "a third of the bytes: clearly more compressed")
        #expect(DuplicateGroups.best(of: [2, 3], copies: copies) == 3, "as compressed: the sharper")
    }
}
