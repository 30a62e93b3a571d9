import BenchmarkSupport
import FaceRecognition
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// Every matcher (the all-block ones also in a neighbourhood of radius 1) × path × device against the
/// plain-Swift reference on random descriptors; on OpenCL also the fused kernel's GPU shape, on a grid of
/// more blocks than its work-group takes in one pass, with 256-bin blocks.
@Suite struct MatcherReferenceTests {
    struct Case: Sendable, CustomStringConvertible {
        let matcher: Matcher
        let path: SearchPath
        let device: DeviceChoice
        var radius: Int? = nil
        /// Kernels on the schedules written for GPUs.
        var gpuShaped = false
        var description: String {
            """
            \(matcher.rawValue)\(radius.map { " r=\($0)" } ?? "") · \(path.rawValue) · \
            \(device.rawValue)\(gpuShaped ? " · GPU-shaped" : "")
            """
        }
    }

    static var cases: [Case] {
        let devices: [DeviceChoice] = TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu]
        let matchers = Matcher.descriptorMatchers.map { ($0, nil as Int?) } + [(Matcher.nbnn, 1), (.nbnnPerFace, 1)]
        let gpuShaped =
            TestDevices.hasOpenCL
            ? matchers.map { Case(matcher: $0, path: .fused, device: .opencl, radius: $1, gpuShaped: true) } : []
        return matchers.flatMap { m, r in
            SearchPath.allCases.flatMap { p in devices.map { Case(matcher: m, path: p, device: $0, radius: r) } }
        }
            + gpuShaped
    }

    /// |a − b| ≤ 1e-4 relative (distances below 1e-3 compared as if they were 1e-3).
    static func close(_ a: Float, _ b: Float) -> Bool { abs(a - b) <= 1e-4 * max(abs(b), 1e-3) }

    @Test(arguments: cases)
    func matchesTheReference(_ test: Case) throws {
        var generator = SeededGenerator()
        // 59 bins and 20 blocks; GPU-shaped, 256 bins and 96 blocks (about 72 of them weighted: two passes of 64).
        let parameters =
            test.gpuShaped
            ? DescriptorParameters(uniform: false, gridColumns: 12, gridRows: 8)
            : DescriptorParameters(uniform: true, gridColumns: 5, gridRows: 4)
        let entries = RandomGallery.entries(parameters, faces: 37, using: &generator)
        let probe = RandomGallery.descriptor(parameters, using: &generator)
        let weights = try WeightMap(
            columns: parameters.gridColumns, rows: parameters.gridRows,
            weights: (0..<parameters.blockCount).map { _ in Float([0, 1, 2, 4].randomElement(using: &generator)!) })
        let context = RenderContext(device: try TestDevices.device(test.device))
        if test.gpuShaped {
            // The premise: pocl's limits take the GPU shape (16 × 16 work-items, a staged 16 KB block).
            #expect(
                context.device.capabilities.maxWorkGroupSize >= 256
                    && context.device.capabilities.localMemoryBytes >= 32 << 10)
            context.useSchedules(of: .openCL(.gpu))
        }
        let gallery = Gallery(parameters: parameters, context: context)
        try gallery.append(entries)
        for form in HistogramDifference.Form.allCases {
            let options = SearchOptions(
                matcher: test.matcher, weights: weights, form: form, path: test.path, radius: test.radius)
            let label = "\(test) \(form), seed \(generator.seed)"
            let (found, expected) = try Self.searchMatchesReference(
                gallery, probe, entries: entries, options: options, context: label)
            let bestFaces = Dictionary(uniqueKeysWithValues: found.images.map { ($0.image, $0.bestFace) })
            #expect(expected.images.allSatisfy { bestFaces[$0.image] == $0.bestFace }, "\(label): best faces differ")
        }
        #expect(context.fallbackReason == nil, "\(test): \(context.fallbackReason ?? "")")
    }

    /// A probe with values too small for the CPU twin's sums of four fractions a division (the product of
    /// four denominators would underflow, and the distances go wrong) takes its one-division path and gets
    /// the reference's distances.
    @Test func tinyProbeValuesMatchTheReference() throws {
        var generator = SeededGenerator()
        let parameters = DescriptorParameters(uniform: true, gridColumns: 5, gridRows: 4)
        let entries = RandomGallery.entries(parameters, faces: 37, using: &generator)
        let random = RandomGallery.descriptor(parameters, using: &generator)
        let probe = try FaceDescriptor(
            parameters: parameters,
            histograms: random.histograms.enumerated().map { $0.offset % 5 == 0 ? $0.element * 1e-33 : $0.element })
        let gallery = Gallery(parameters: parameters, context: RenderContext(device: .cpu))
        try gallery.append(entries)
        for matcher in [Matcher.nbnn, .restrictedNBNN] {
            try Self.searchMatchesReference(
                gallery, probe, entries: entries,
                options: SearchOptions(matcher: matcher, weights: .uniform(columns: 5, rows: 4)),
                context: "tiny probe values, \(matcher.rawValue), seed \(generator.seed)")
        }
    }

    /// Same members, distances within tolerance, and the same ranking up to swaps of near-equal distances.
    /// Searches `gallery` for `probe` and compares the faces and images found with the reference's over
    /// `entries`; returns both.
    @discardableResult
    static func searchMatchesReference(
        _ gallery: Gallery, _ probe: FaceDescriptor,
        entries: [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)], options: SearchOptions,
        context label: String
    ) throws -> (found: Everything, expected: (faces: [FaceMatch], images: [ImageMatch])) {
        var found = Everything()
        try gallery.search(probe, options: options, into: &found)
        let expected = Reference.search(probe, in: entries, options: options)
        try compare(found.faces, expected.faces, id: \.face, context: label)
        try compare(found.images, expected.images, id: \.image, context: label)
        return (found, expected)
    }

    static func compare<Match, ID: Hashable>(
        _ found: [Match], _ expected: [Match], id: KeyPath<Match, ID>,
        context: String
    ) throws where Match: Sendable {
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
