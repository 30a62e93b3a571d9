import BenchmarkSupport
import PhotoSimilarity
import Testing

/// Duplicate groups never chain: every member is linked to the group's centre (to every member, by the
/// stricter rule), the copy to keep comes first, and the groups do not depend on the links' order.
@Suite struct DuplicateGroupsTests {
    /// A photo linked to two others keeps both (they are copies of it), the best copy first; the stricter
    /// rule keeps only those linked to each other too. A long chain of look-alikes, each linked to the next,
    /// never becomes one group: groups of a photo and its two neighbours.
    @Test func groupsAreAPhotoAndItsCopiesNeverAChain() {
        let copies = [800, 600, 400].map { DuplicateGroups.Copy(pixels: $0, sharpness: 1, bytes: 1) }
        #expect(DuplicateGroups.groups(links: [(0, 1), (1, 2)], copies: copies) == [[0, 1, 2]])
        #expect(
            DuplicateGroups.groups(links: [(0, 1), (1, 2)], copies: copies, rule: .linkedToEveryMember) == [[0, 1]])
        let chain = (0..<50).map { DuplicateGroups.Copy(pixels: 1000 - $0, sharpness: 1, bytes: 1) }
        let groups = DuplicateGroups.groups(links: (0..<49).map { ($0, $0 + 1) }, copies: chain)
        #expect(groups.allSatisfy { $0.count <= 3 && $0.max()! - $0.min()! == $0.count - 1 }, "\(groups)")
        #expect(groups.flatMap { $0 }.count == 50 && groups.count == 17, "\(groups)")
    }

    @Test func membersAreLinkedToTheirCentre() {
        var generator = SeededGenerator()
        for _ in 0..<50 {
            let count = Int.random(in: 2...200, using: &generator)
            let links = (0..<Int.random(in: 0...(2 * count), using: &generator)).map { _ in
                (Int.random(in: 0..<count, using: &generator), Int.random(in: 0..<count, using: &generator))
            }
            let copies = (0..<count).map { _ in
                DuplicateGroups.Copy(
                    pixels: Int.random(in: 1...5, using: &generator),
                    sharpness: Double.random(in: 0...1, using: &generator),
                    bytes: Int.random(in: 1...100, using: &generator))
            }
            let linked = Set(links.flatMap { [[$0.0, $0.1], [$0.1, $0.0]] })
            for rule in DuplicateGroups.Rule.allCases {
                let groups = DuplicateGroups.groups(links: links, copies: copies, rule: rule)
                let members = groups.flatMap { $0 }
                #expect(Set(members).count == members.count, "seed \(generator.seed): a photo in two groups")
                for group in groups {
                    #expect(
                        group.count > 1 && DuplicateGroups.best(of: group.shuffled(), copies: copies) == group[0],
                        "seed \(generator.seed): \(group) keeps another")
                    #expect(
                        group.contains { centre in group.allSatisfy { $0 == centre || linked.contains([centre, $0]) } },
                        "seed \(generator.seed): \(group) has no centre")
                    if rule == .linkedToEveryMember {
                        for (index, a) in group.enumerated() {
                            #expect(group[(index + 1)...].allSatisfy { linked.contains([a, $0]) })
                        }
                    }
                }
                #expect(DuplicateGroups.groups(links: links.reversed(), copies: copies, rule: rule) == groups)
            }
        }
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
