import FaceRecognition
import ImageKernels
import ReferenceFilters
import Testing
import TestSupport

/// Every matcher (the all-block ones also in a neighbourhood of radius 1) × path × device against the
/// plain-Swift reference on random descriptors.
@Suite struct MatcherReferenceTests {
    struct Case: Sendable, CustomStringConvertible {
        let matcher: Matcher
        let path: SearchPath
        let device: DeviceChoice
        var radius: Int? = nil
        var description: String { "\(matcher.rawValue)\(radius.map { " r=\($0)" } ?? "") · \(path.rawValue) · \(device.rawValue)" }
    }

    static var cases: [Case] {
        let devices: [DeviceChoice] = TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu]
        let matchers = Matcher.descriptorMatchers.map { ($0, nil as Int?) } + [(Matcher.nbnn, 1), (.nbnnPerFace, 1)]
        return matchers.flatMap { m, r in SearchPath.allCases.flatMap { p in devices.map { Case(matcher: m, path: p, device: $0, radius: r) } } }
    }

    /// |a − b| ≤ 1e-4 relative (distances below 1e-3 compared as if they were 1e-3).
    static func close(_ a: Float, _ b: Float) -> Bool { abs(a - b) <= 1e-4 * max(abs(b), 1e-3) }

    @Test(arguments: cases)
    func matchesTheReference(_ test: Case) throws {
        var generator = SeededGenerator()
        let parameters = DescriptorParameters(uniform: true, gridColumns: 5, gridRows: 4)   // 59 bins, 20 blocks
        let entries = RandomGallery.entries(parameters, faces: 37, using: &generator)
        let probe = RandomGallery.descriptor(parameters, using: &generator)
        let weights = try WeightMap(columns: 5, rows: 4, weights: (0..<20).map { _ in Float([0, 1, 2, 4].randomElement(using: &generator)!) })
        let gallery = Gallery(parameters: parameters, context: RenderContext(device: try TestDevices.device(test.device)))
        try gallery.append(entries)
        for form in HistogramDifference.Form.allCases {
            let options = SearchOptions(matcher: test.matcher, weights: weights, form: form, path: test.path, radius: test.radius)
            var found = Everything()
            try gallery.search(probe, options: options, into: &found)
            let expected = Reference.search(probe, in: entries, options: options)
            let context = "\(test) \(form), seed \(generator.seed)"
            try compare(found.faces, expected.faces, id: \.face, context: context)
            try compare(found.images, expected.images, id: \.image, context: context)
            let bestFaces = Dictionary(uniqueKeysWithValues: found.images.map { ($0.image, $0.bestFace) })
            #expect(expected.images.allSatisfy { bestFaces[$0.image] == $0.bestFace }, "\(context): best faces differ")
        }
    }

    /// Same members, distances within tolerance, and the same ranking up to swaps of near-equal distances.
    private func compare<Match, ID: Hashable>(_ found: [Match], _ expected: [Match], id: KeyPath<Match, ID>,
                                             context: String) throws where Match: Sendable {
        func distance(_ m: Match) -> Float {
            (m as? FaceMatch)?.distance ?? (m as? ImageMatch)?.distance ?? .nan
        }
        #expect(found.count == expected.count, "\(context)")
        let byID = Dictionary(uniqueKeysWithValues: found.map { ($0[keyPath: id], $0) })
        for match in expected {
            let other = try #require(byID[match[keyPath: id]], "\(context): \(match) missing")
            #expect(Self.close(distance(other), distance(match)), "\(context): \(other) vs \(match)")
        }
        let ranked = found.sorted { distance($0) < distance($1) }
        for (a, b) in zip(ranked, expected) where a[keyPath: id] != b[keyPath: id] {
            #expect(Self.close(distance(a), distance(b)), "\(context): ranking differs at \(a) vs \(b)")
        }
    }
}
