import BenchmarkSupport
import FaceRecognition
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// The suggestions a person's page makes, against their definition (``Reference/suggestions``) on both
/// devices, and what they are for: a person's other groups and lone faces before anyone else's.
@Suite struct PeopleSuggestionsTests {
    @Test(arguments: GalleryTests.devices)
    func matchTheirDefinition(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: try TestDevices.device(choice))
        for _ in 0..<4 {
            let rows = FaceClusteringTests.faces(
                people: Int.random(in: 2...6, using: &generator), faces: Int.random(in: 3...8, using: &generator),
                using: &generator)
            // Faces in random groups of up to four (in face order, so a group mixes people), a fifth alone.
            var groups: [Int?] = [], next = 0
            for _ in rows {
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    groups.append(nil)
                } else {
                    if Int.random(in: 0..<4, using: &generator) == 0 { next += 1 }
                    groups.append(next)
                }
            }
            let threshold = Float.random(in: 0.2..<0.6, using: &generator)
            let clustering = FaceClustering(
                threshold: threshold, faceNeighbours: Int.random(in: 0...4, using: &generator),
                reach: threshold * Float.random(in: 1..<1.4, using: &generator), tileRows: 5)
            guard let target = groups.compactMap({ $0 }).first else { continue }
            let candidates = Int.random(in: 1...12, using: &generator)
            let found = try clustering.suggestions(
                for: target, of: rows.flatMap { $0 }, length: 16, groups: groups, candidates: candidates,
                context: context)
            // The reference's candidates: every other group, then every lone face.
            let keys = Array(Set(groups.compactMap { $0 }).subtracting([target])).sorted()
            let lone = groups.indices.filter { groups[$0] == nil }
            let members = { (key: Int) in groups.indices.filter { groups[$0] == key } }
            let expected = Reference.suggestions(
                for: members(target), among: keys.map(members) + lone.map { [$0] }, rows: rows,
                faceNeighbours: clustering.faceNeighbours, reach: clustering.reach, within: clustering.suggestionReach,
                candidates: candidates)
            let described =
                "\(rows.count) faces, \(candidates) candidates, \(clustering), \(choice), seed \(generator.seed)"
            #expect(
                found.map(\.candidate)
                    == expected.map {
                        $0.other < keys.count ? .group(keys[$0.other]) : .face(lone[$0.other - keys.count])
                    },
                "\(described)")
            for (suggestion, reference) in zip(found, expected) {
                #expect(abs(suggestion.distance - reference.distance) < 1e-4, "\(described)")
            }
        }
    }

    /// One person's faces in two groups and one alone, beside another person: the person's page suggests its
    /// other group and its lone face, and not the other person.
    @Test func aPersonsOtherGroupAndLoneFaceComeBeforeAnyoneElse() throws {
        var generator = SeededGenerator()
        let rows = FaceClusteringTests.faces(people: 2, faces: 7, using: &generator)  // face f: person f % 2
        let groups: [Int?] = rows.indices.map { $0 % 2 == 1 ? 30 : $0 == 12 ? nil : $0 < 6 ? 10 : 20 }
        let clustering = FaceClustering(threshold: 0.35, reach: 0.5)
        let found = try clustering.suggestions(
            for: 10, of: rows.flatMap { $0 }, length: 16, groups: groups, context: RenderContext(device: .cpu))
        #expect(Set(found.map(\.candidate)) == [.group(20), .face(12)], "seed \(generator.seed): \(found)")
        #expect(
            try clustering.suggestions(
                for: 99, of: rows.flatMap { $0 }, length: 16, groups: groups, context: RenderContext(device: .cpu)
            ).isEmpty, "a group with no faces has no suggestions")
        #expect(throws: RecognitionError.self) {
            try clustering.suggestions(
                for: 10, of: rows.flatMap { $0 }, length: 16, groups: [10], context: RenderContext(device: .cpu))
        }
        #expect(throws: RecognitionError.self) {
            try clustering.suggestions(
                for: 10, of: rows.flatMap { $0 }, length: 16, groups: groups, candidates: 0,
                context: RenderContext(device: .cpu))
        }
    }
}
