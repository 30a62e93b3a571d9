import BenchmarkSupport
import PhotoSimilarity
import Testing

/// The sharper ranking's parts: neighbour lists kept up to date as prints come and go against lists found
/// from scratch (random prints in clusters, with exact copies, so that ties are there to break), and the
/// sums of power normalisation and expansion against hand-worked values.
@Suite struct PrintExpansionTests {
    @Test func neighbourhoodsKeptUpToDateAreThoseFoundFromScratch() {
        var generator = SeededGenerator()
        let length = 12
        let centres = (0..<6).map { _ in (0..<length).map { _ in Float.random(in: -1...1, using: &generator) } }
        func randomPrint() -> [Float] {
            let centre = centres[Int.random(in: 0..<centres.count, using: &generator)]
            let spread = Float.random(in: 0.05...0.8, using: &generator)
            return PrintExpansion.rooted(centre.map { $0 + spread * Float.random(in: -1...1, using: &generator) })
        }
        var table = PrintTable([:]), next: Int64 = 0
        var kept = PrintNeighbourhoods(count: 3)
        var changes = (added: 0, removed: 0, losingANeighbour: 0)
        for step in 0..<40 {
            // Some prints gone, some new (now and then a copy of a stored one), or neither.
            let stored = table.prints.keys.sorted()
            for id in stored where Int.random(in: 0..<6, using: &generator) == 0 {
                table.prints[id] = nil
                changes.removed += 1
                changes.losingANeighbour += kept.lists.values.filter { $0.contains { $0.id == id } }.count
            }
            for _ in 0..<(step == 0 ? 12 : Int.random(in: 0...4, using: &generator)) {
                let copy = stored.randomElement(using: &generator).flatMap { table.prints[$0] }
                table.prints[next] = Bool.random(using: &generator) ? copy ?? randomPrint() : randomPrint()
                next += 1
                changes.added += 1
            }
            kept.update(to: table)
            var fresh = PrintNeighbourhoods(count: 3)
            fresh.update(to: table)
            #expect(kept == fresh, "step \(step)")
            #expect(Set(kept.lists.keys) == table.ids)
            #expect(kept.lists.values.allSatisfy { $0.count == min(3, table.prints.count - 1) })
        }
        #expect(changes.added > 60 && changes.removed > 30 && changes.losingANeighbour > 20, "\(changes)")
    }

    @Test func listsRankNearerFirstAndTiesByTheLowerID() {
        let table = PrintTable([5: [1, 0], 2: [1, 0], 9: [0.6, 0.8], 1: [0, 1], 7: [1, 0]])
        var neighbourhoods = PrintNeighbourhoods(count: 3)
        neighbourhoods.update(to: table)
        #expect(neighbourhoods.lists[5]?.map(\.id) == [2, 7, 9])
        #expect(neighbourhoods.lists[1]?.map(\.id) == [9, 2, 5])
        #expect(neighbourhoods.lists[1]?.first?.similarity == 0.8)
    }

    @Test func rootsKeepSignsAndUnitLength() {
        let rooted = PrintExpansion.rooted([4, -1, 0, 0])
        let root5 = Float(5).squareRoot()
        let expected: [Float] = [2 / root5, -1 / root5, 0, 0]
        #expect(zip(rooted, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(rooted)")
        #expect(PrintExpansion.rooted([0, 0]) == [0, 0])
    }

    @Test func expansionWeighsNeighboursByTheirSimilarityToThePower() {
        let expansion = PrintExpansion(neighbourCount: 2, weightPower: 2)
        // [1, 0] + 0.5² · [0, 1] + 0 · [0, -1] (a negative similarity weighs nothing) = [1, 0.25].
        let expanded = expansion.expanded([1, 0], with: [([0, 1], 0.5), ([0, -1], -0.2)])
        let length = (1 + 0.0625 as Float).squareRoot()
        #expect(abs(expanded[0] - 1 / length) < 1e-6 && abs(expanded[1] - 0.25 / length) < 1e-6, "\(expanded)")
        // α 0 weighs every neighbour as the print itself: the plain mean's direction.
        let plain = PrintExpansion(neighbourCount: 1, weightPower: 0).expanded([1, 0], with: [([0, 1], 0.1)])
        #expect(abs(plain[0] - plain[1]) < 1e-6)
    }

    @Test func augmentationTakesTheFirstNeighboursOfTheList() throws {
        let prints: [Int64: [Float]] = [1: [1, 0], 2: [0.8, 0.6], 3: [0.6, 0.8], 4: [0, 1]]
        var neighbourhoods = PrintNeighbourhoods(count: 3)
        neighbourhoods.update(to: PrintTable(prints))
        let expansion = PrintExpansion(neighbourCount: 1, weightPower: 1)
        let augmented = try #require(expansion.augmented(1, in: prints, neighbourhoods: neighbourhoods))
        #expect(augmented == expansion.expanded([1, 0], with: [([0.8, 0.6], 0.8)]))
        #expect(expansion.augmented(5, in: prints, neighbourhoods: neighbourhoods) == nil)
    }
}
