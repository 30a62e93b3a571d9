import BenchmarkSupport
import FaceRecognition
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// Clustering against average linkage computed from its definition, on both devices, and its rules:
/// the minimum size, anchored groups that stay apart, faces added to an existing clustering.
@Suite struct FaceClusteringTests {
    /// `people` random centres with `faces` noisy faces each: people about 1 apart, faces about 0.3 from theirs.
    static func faces(people: Int, faces: Int, length: Int = 16, using generator: inout SeededGenerator) -> [[Float]] {
        let centres = (0..<people).map { _ in (0..<length).map { _ in Float.random(in: -0.5..<0.5, using: &generator) }
        }
        return (0..<people * faces).map { face in
            centres[face % people].map { $0 + Float.random(in: -0.12..<0.12, using: &generator) }
        }
    }

    /// The partition as sets of faces, whatever the numbering; unassigned faces as sets of one.
    static func partition(_ labels: [Int?]) -> Set<Set<Int>> {
        var groups: [String: Set<Int>] = [:]
        for (face, label) in labels.enumerated() {
            groups[label.map { "c\($0)" } ?? "f\(face)", default: []].insert(face)
        }
        return Set(groups.values)
    }

    @Test(arguments: GalleryTests.devices)
    func matchesAverageLinkageFromItsDefinition(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: try TestDevices.device(choice))
        for _ in 0..<3 {
            let rows = Self.faces(
                people: Int.random(in: 2...7, using: &generator), faces: Int.random(in: 3...9, using: &generator),
                using: &generator)
            let threshold = Float.random(in: 0.3..<1.2, using: &generator)
            let faceNeighbours = Int.random(in: 0...4, using: &generator)
            let reach = threshold * Float.random(in: 1..<1.4, using: &generator)
            // Few neighbours and small tiles, so that candidates come over several rounds and launches.
            let clustering = FaceClustering(
                threshold: threshold, faceNeighbours: faceNeighbours, reach: reach, minimumClusterSize: 1,
                neighbours: 3, tileRows: 7)
            let labels = try clustering.clusters(of: rows.flatMap { $0 }, length: 16, context: context)
            let expected = Reference.averageLinkage(
                rows, threshold: threshold, faceNeighbours: faceNeighbours, reach: reach)
            #expect(
                Self.partition(labels) == Self.partition(expected),
                """
                \(rows.count) faces, threshold \(threshold), \(faceNeighbours) face neighbours within \(reach), \
                \(choice), seed \(generator.seed)
                """)
            #expect(
                try clustering.clusters(of: rows.flatMap { $0 }, length: 16, context: context) == labels,
                "deterministic")
        }
    }

    @Test func smallClustersAreLeftUnassigned() throws {
        var generator = SeededGenerator()
        let rows =
            Self.faces(people: 4, faces: 5, using: &generator) + Self.faces(people: 1, faces: 1, using: &generator)
        let labels = try FaceClustering(minimumClusterSize: 5).clusters(
            of: rows.flatMap { $0 }, length: 16, context: RenderContext(device: .cpu))
        #expect(labels.last == .some(nil), "seed \(generator.seed)")
        #expect(
            Set(labels.prefix(20).compactMap { $0 }).count == 4 && labels.prefix(20).allSatisfy { $0 != nil },
            "seed \(generator.seed)")
    }

    @Test func anchoredGroupsStayApartAndNewFacesJoinThem() throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: .cpu)
        let rows = Self.faces(people: 3, faces: 6, using: &generator)  // face f belongs to person f % 3
        // Person 0's faces split by hand into two anchored groups: they stay two; person 1's faces are one
        // free group, which joins the rest of its person.
        let groups: [Int?] = rows.indices.map {
            $0 % 3 == 0 ? ($0 < 9 ? 100 : 200) : ($0 % 3 == 1 && $0 < 9 ? 300 : nil)
        }
        let labels = try FaceClustering().clusters(
            of: rows.flatMap { $0 }, length: 16,
            start: .init(groups: groups, anchored: [100, 200]), context: context)
        let person0 = rows.indices.filter { $0 % 3 == 0 }, person1 = rows.indices.filter { $0 % 3 == 1 }
        #expect(Set(person0.map { labels[$0] }).count == 2, "seed \(generator.seed)")
        #expect(Set(person1.map { labels[$0] }).count == 1, "seed \(generator.seed)")
        // Added later: faces 12..<18 join a clustering of the first 12, which is anchored; only they are searched.
        let existing = try FaceClustering().clusters(of: rows.prefix(12).flatMap { $0 }, length: 16, context: context)
        let before = existing + [Int?](repeating: nil, count: 6)
        let after = try FaceClustering().clusters(
            of: rows.flatMap { $0 }, length: 16,
            start: .init(
                groups: before, anchored: Set(existing.compactMap { $0 }),
                changed: Array(12..<18)),
            context: context)
        #expect(
            Self.partition(after) == Set((0..<3).map { person in Set(rows.indices.filter { $0 % 3 == person }) }),
            "seed \(generator.seed)")
    }

    /// A person's faces far from the rest but near a few of them (profiles, say) join their person, where
    /// plain average linkage leaves them out; a second person as far away, whose faces' nearest faces are
    /// their own, stays apart.
    @Test func farFacesJoinThroughTheirNearestFaces() throws {
        // One coordinate a face: person A's core at 0…0.08, its far faces at 0.62 and 0.66; person B's
        // faces around 1.3, beyond the reach of A's core and its far faces alike.
        let core: [Float] = [0, 0.02, 0.04, 0.06, 0.08], far: [Float] = [0.62, 0.66],
            other: [Float] = [1.3, 1.32, 1.34]
        let rows = core + far + other
        let context = RenderContext(device: .cpu)
        let plain = try FaceClustering(threshold: 0.5, faceNeighbours: 0, minimumClusterSize: 1).clusters(
            of: rows, length: 1, context: context)
        let helped = try FaceClustering(threshold: 0.5, faceNeighbours: 3, reach: 0.62, minimumClusterSize: 1)
            .clusters(of: rows, length: 1, context: context)
        #expect(Self.partition(plain) == [Set(0..<5), Set(5..<7), Set(7..<10)])
        #expect(Self.partition(helped) == [Set(0..<7), Set(7..<10)])
    }

    @Test func badParametersAreRefused() {
        #expect(throws: RecognitionError.self) {
            try FaceClustering(threshold: .nan).clusters(of: [0, 1], length: 1, context: RenderContext(device: .cpu))
        }
        #expect(throws: RecognitionError.self) {
            try FaceClustering().clusters(of: [0, 1, 2], length: 2, context: RenderContext(device: .cpu))
        }
        #expect(throws: RecognitionError.self) {
            try FaceClustering(threshold: 0.6, reach: 0.5).clusters(
                of: [0, 1], length: 1, context: RenderContext(device: .cpu))
        }
        #expect(throws: RecognitionError.self) {
            try FaceClustering(faceNeighbours: -1).clusters(
                of: [0, 1], length: 1, context: RenderContext(device: .cpu))
        }
    }
}
