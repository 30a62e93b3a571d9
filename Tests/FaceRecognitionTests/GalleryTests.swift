import BenchmarkSupport
import FaceRecognition
import ImageCodecs
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

@Suite struct GalleryTests {
    static var devices: [DeviceChoice] { TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu] }

    @Test(arguments: devices)
    func zeroWeightBlocksAreSkippedNotMultipliedByZero(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let parameters = DescriptorParameters(uniform: true)
        let weights = WeightMap.reference
        let skipped = Set(weights.weights.indices.filter { weights.weights[$0] == 0 })
        // NaN in every skipped block: multiplying by zero would give NaN, skipping gives the clean result.
        func poisoned(_ d: FaceDescriptor) throws -> FaceDescriptor {
            var values = d.histograms
            for block in skipped { for bin in 0..<parameters.bins { values[block * parameters.bins + bin] = .nan } }
            return try FaceDescriptor(parameters: parameters, histograms: values)
        }
        let entries = RandomGallery.entries(parameters, faces: 20, using: &generator)
        let probe = RandomGallery.descriptor(parameters, using: &generator)
        let gallery = Gallery(parameters: parameters, context: RenderContext(device: try TestDevices.device(choice)))
        try gallery.append(entries.map { (try poisoned($0.descriptor), $0.face, $0.image) })
        for matcher in [Matcher.weightedChiSquare, .restrictedNBNN] {
            for path in SearchPath.allCases {
                let options = SearchOptions(matcher: matcher, weights: weights, path: path)
                var found = Everything()
                try gallery.search(try poisoned(probe), options: options, into: &found)
                let expected = Dictionary(
                    uniqueKeysWithValues: Reference.search(probe, in: entries, options: options).faces.map {
                        ($0.face, $0.distance)
                    })
                #expect(
                    found.faces.allSatisfy {
                        $0.distance.isFinite && MatcherReferenceTests.close($0.distance, expected[$0.face]!)
                    },
                    "\(matcher) \(path) seed \(generator.seed)")
            }
        }
    }

    @Test(arguments: devices)
    func appendAndRemoveKeepTheDeviceCopyCurrent(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let parameters = DescriptorParameters(gridColumns: 4, gridRows: 4)
        let all = RandomGallery.entries(parameters, faces: 70, using: &generator)
        var entries = Array(all[0..<10])
        let probe = RandomGallery.descriptor(parameters, using: &generator)
        // Segments of two tiles (32 faces), so that growth and edits cross segment boundaries.
        let tileBytes = parameters.length * 16 * 4
        let gallery = Gallery(
            parameters: parameters, context: RenderContext(device: try TestDevices.device(choice)),
            segmentBytes: 2 * tileBytes)
        func check(_ step: String) throws {
            for path in SearchPath.allCases {
                let options = SearchOptions(matcher: .nbnn, weights: .uniform(columns: 4, rows: 4), path: path)
                var found = Everything()
                try gallery.search(probe, options: options, into: &found)
                let expected = Reference.search(probe, in: entries, options: options)
                #expect(found.faces.count == entries.count, "\(step)")
                let distances = Dictionary(uniqueKeysWithValues: found.images.map { ($0.image, $0.distance) })
                #expect(
                    expected.images.allSatisfy { match in
                        distances[match.image].map { MatcherReferenceTests.close($0, match.distance) } ?? false
                    },
                    "\(step), \(path), seed \(generator.seed)")
            }
        }
        try gallery.append(entries)
        try check("first 10 faces")  // one segment
        try gallery.append(Array(all[10..<40]))
        entries = Array(all[0..<40])
        try check("40 faces")  // the first segment fills, a second begins
        try gallery.append(Array(all[40...]))
        entries = all
        try check("70 faces")  // 5 tiles in 3 segments
        let removedImage = entries[5].image, removedFace = entries[57].face
        gallery.remove(image: removedImage)
        try gallery.remove(face: removedFace)
        entries.removeAll { $0.image == removedImage || $0.face == removedFace }
        try check("after removals")  // changed tiles are re-sent
        let newcomers = RandomGallery.entries(parameters, faces: 3, using: &generator).map {
            ($0.descriptor, FaceID($0.face.rawValue + 10_000), ImageID(9_999))
        }
        try gallery.append(newcomers)
        entries += newcomers
        try check("freed slots reused")
        #expect(gallery.count == entries.count)
        #expect(throws: RecognitionError.self) {
            try gallery.append(entries[0].descriptor, face: entries[0].face, image: ImageID(1))
        }
        #expect(throws: RecognitionError.self) { try gallery.remove(face: FaceID(-1)) }
    }

    @Test func mismatchedParametersAreATypedError() throws {
        var generator = SeededGenerator()
        let gallery = Gallery(parameters: .standard, context: RenderContext(device: .cpu))
        let other = DescriptorParameters(uniform: true)
        let stranger = RandomGallery.descriptor(other, using: &generator)
        #expect(throws: RecognitionError.parametersMismatch(expected: .standard, actual: other)) {
            try gallery.append(stranger, face: FaceID(1), image: ImageID(1))
        }
        var top = TopFaces(3)
        #expect(throws: RecognitionError.parametersMismatch(expected: .standard, actual: other)) {
            try gallery.search(stranger, options: SearchOptions(), into: &top)
        }
        #expect(throws: RecognitionError.weightMapMismatch(map: "7×7", grid: "8×8")) {
            try gallery.search(
                RandomGallery.descriptor(.standard, using: &generator), options: SearchOptions(weights: .ahonen),
                into: &top)
        }
    }

    @Test(.needs(.orl)) func anORLFaceFindsItselfFirstAtDistanceZero() throws {
        let root = SharedData.root + "/orl"
        let paths = (1...40).map { "\(root)/s\($0)/1.pgm" } + (1...40).map { "\(root)/s\($0)/2.pgm" }
        let faces = try paths.map { try ImageDecoder.decode(contentsOf: $0) }
        for choice in Self.devices {
            let describer = try FaceDescriber(context: RenderContext(device: try TestDevices.device(choice)))
            let descriptors = try describer.describe(try PixelBuffer.batch(faces))
            let gallery = Gallery(parameters: describer.parameters, context: describer.context)
            try gallery.append(
                descriptors.indices.map { (descriptors[$0], FaceID(Int64($0)), ImageID(Int64($0 % 40))) })
            for matcher in Matcher.descriptorMatchers {
                let probe = 13
                var top = BothCollectors(TopFaces(3), TopImages(3))
                try gallery.search(
                    descriptors[probe], options: SearchOptions(matcher: matcher, weights: .reference), into: &top)
                #expect(top.first.matches.first?.face == FaceID(Int64(probe)), "\(matcher) on \(choice)")
                #expect(top.first.matches.first?.distance == 0, "\(matcher) on \(choice): \(top.first.matches)")
                #expect(top.second.matches.first?.image == ImageID(Int64(probe % 40)))
            }
        }
    }

    /// A search on an OpenCL device whose search program does not build moves the context, and the gallery
    /// resident on OpenCL, to the CPU device, and returns what the CPU device returns.
    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"))
    func searchFallsBackToTheCPUTwin() throws {
        var generator = SeededGenerator()
        let failing = RenderContext(device: try TestDevices.openCL.get().withFailingBuilds(of: ["ChiSquareNearest"]))
        let galleries = [
            Gallery(parameters: .standard, context: failing),
            Gallery(parameters: .standard, context: RenderContext(device: .cpu)),
        ]
        let faces = (0..<37).map { _ in RandomGallery.descriptor(.standard, using: &generator) }
        for gallery in galleries {
            try gallery.append(faces.indices.map { (faces[$0], FaceID(Int64($0)), ImageID(Int64($0 % 5))) })
        }
        let probe = RandomGallery.descriptor(.standard, using: &generator)
        let said = try StandardError.captured {
            for matcher in Matcher.descriptorMatchers {
                let found = try galleries.map { gallery in
                    var top = BothCollectors(TopFaces(5), TopImages(3))
                    try gallery.search(
                        probe, options: SearchOptions(matcher: matcher, weights: .reference), into: &top)
                    return top
                }
                #expect(found[0].first.matches == found[1].first.matches, "\(matcher), seed \(generator.seed)")
                #expect(found[0].second.matches == found[1].second.matches, "\(matcher), seed \(generator.seed)")
            }
        }
        #expect(said.contains("falling back to the CPU device") && said.contains("ChiSquareNearest"), "\(said)")
        #expect(failing.device.kind == .cpu && failing.statistics.fallbacks == 1)
        #expect(failing.fallbackReason?.contains("ChiSquareNearest") == true)
    }

    @Test func weightMapsFromTextAndFiles() throws {
        let text = "# eyes count double\n1 2 1\n0, 1, 0\n"
        let map = try WeightMap(text: text)
        #expect(map.columns == 3 && map.rows == 2 && map.weights == [1, 2, 1, 0, 1, 0])
        #expect(map.activeBlocks.map(\.block) == [0, 1, 2, 4])
        #expect(try WeightMap(text: "2 1 / 1 2").weights == [2, 1, 1, 2])
        #expect(throws: RecognitionError.self) { try WeightMap(text: "1 2\n3") }
        #expect(throws: RecognitionError.self) { try WeightMap(text: "1 -2") }
        #expect(throws: RecognitionError.self) { try WeightMap(contentsOf: "/nonexistent/weights.txt") }
        #expect(WeightMap.reference.weights.filter { $0 == 8 }.count == 12)
        #expect(WeightMap.ahonen.columns == 7 && WeightMap.ahonen.weights.reduce(0, +) == 56)
    }

    @Test func collectorsKeepWhatTheySay() {
        var top = TopFaces(2), within = WithinDistance(0.5)
        for (i, d) in [0.9, 0.1, 0.4, 0.1, 0.7].enumerated() {
            let match = FaceMatch(face: FaceID(Int64(10 - i)), image: ImageID(1), distance: Float(d))
            top.collect(match)
            within.collect(match)
        }
        #expect(top.matches.map(\.face) == [FaceID(7), FaceID(9)])  // ties go to the smaller identifier
        #expect(within.sorted.faces.map(\.distance) == [0.1, 0.1, 0.4])
    }
}
