import BenchmarkSupport
import FaceRecognition
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// The restricted matchers on faces stored as counts, which the gallery searches as they are
/// (``ChiSquareCounts``), against the plain-Swift reference on every device, in both forms, through
/// removals, reused slots and the compaction of the stored bytes: random counted faces of 59 bins (a bitmap
/// with 3 bits past the last bin) and of 2-byte counts (blocks of more than 256 pixels), some with a block
/// all in one bin or with fewer codes than pixels.
@Suite struct ChiSquareCountsTests {
    static let devices: [DeviceChoice] = TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu]
    static let parameterSets = [
        DescriptorParameters(uniform: true, gridColumns: 5, gridRows: 4),
        DescriptorParameters(faceSize: 200, gridColumns: 3, gridRows: 5),
    ]

    @Test(arguments: devices, parameterSets)
    func matchesTheReference(_ choice: DeviceChoice, _ parameters: DescriptorParameters) throws {
        var generator = SeededGenerator()
        let all = RandomGallery.entries(parameters, faces: 61, counted: true, using: &generator)
        var entries = Array(all[0..<40])
        let probe = RandomGallery.descriptor(parameters, using: &generator)
        let weights = try WeightMap(
            columns: parameters.gridColumns, rows: parameters.gridRows,
            weights: (0..<parameters.blockCount).map { _ in Float([0, 1, 2, 4].randomElement(using: &generator)!) })
        let context = RenderContext(device: try TestDevices.device(choice))
        let gallery = Gallery(parameters: parameters, context: context)
        func check(_ step: String) throws {
            for matcher in [Matcher.weightedChiSquare, .restrictedNBNN] {
                for form in HistogramDifference.Form.allCases {
                    let options = SearchOptions(matcher: matcher, weights: weights, form: form)
                    let label = "\(step): \(matcher) \(form) \(parameters) \(choice), seed \(generator.seed)"
                    try MatcherReferenceTests.searchMatchesReference(
                        gallery, probe, entries: entries, options: options, context: label)
                }
            }
        }
        try gallery.append(entries)
        try check("40 faces")
        let removedImage = entries[3].image, removedFace = entries[30].face
        gallery.remove(image: removedImage)
        try gallery.remove(face: removedFace)
        entries.removeAll { $0.image == removedImage || $0.face == removedFace }
        try check("after removals")
        try gallery.append(Array(all[40...]))
        entries += all[40...]
        try check("freed slots reused, more added")
        // Most faces gone: their bytes outweigh the rest's, and are dropped.
        for entry in entries.prefix(40) { try gallery.remove(face: entry.face) }
        entries.removeFirst(40)
        try check("after the stored bytes are compacted")
        try gallery.append(Array(all[0..<5]))
        entries += all[0..<5]
        try check("added after the compaction")
        #expect(context.fallbackReason == nil, "\(context.fallbackReason ?? "")")
    }
}
