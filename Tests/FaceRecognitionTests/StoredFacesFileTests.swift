import BenchmarkSupport
import FaceRecognition
import Foundation
import ImageKernels
import ReferenceFilters
import TestSupport
import Testing

/// A gallery written to its file and read back (the stored forms mapped in place) searches as the gallery
/// it was written from, on every device and with every matcher, and still after faces are added (its bytes
/// then move out of the read-only file) and removed; a file of other faces (another tag or parameters), a
/// missing, truncated or damaged one is a typed error naming the file.
@Suite struct StoredFacesFileTests {
    static let devices: [DeviceChoice] = TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu]

    static func temporaryFile() -> String {
        NSTemporaryDirectory() + "gallery-file-\(UUID().uuidString)"
    }

    /// Why reading the gallery file at `path` failed (its `galleryFile` error's reason, naming that file), or
    /// nil when it did not.
    static func reason(reading path: String, _ read: () throws(RecognitionError) -> Void) -> String? {
        do {
            try read()
            return nil
        } catch .galleryFile(let named, let reason) where named == path {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: devices)
    func aGalleryReadFromItsFileSearchesAsTheOriginal(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        // 59 bins: bitmaps with bits past the last bin, which the layout check must refuse.
        let parameters = DescriptorParameters(uniform: true, gridColumns: 5, gridRows: 4)
        // Counted faces, and every seventh of raw values (not counts), which only the dense tiles search.
        let all = RandomGallery.entries(parameters, faces: 50, counted: true, using: &generator).enumerated().map {
            index, entry in
            index % 7 == 3
                ? (
                    descriptor: RandomGallery.descriptor(parameters, using: &generator), face: entry.face,
                    image: entry.image
                ) : entry
        }
        var entries = Array(all[0..<40])
        let probe = RandomGallery.descriptor(parameters, using: &generator)
        let context = RenderContext(device: try TestDevices.device(choice))
        let original = Gallery(parameters: parameters, context: context)
        try original.append(entries)
        // Removals leave a freed slot and dead bytes in the written gallery.
        let removedImage = entries[4].image
        original.remove(image: removedImage)
        entries.removeAll { $0.image == removedImage }
        let path = Self.temporaryFile(), tag = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        defer { try? FileManager.default.removeItem(atPath: path) }
        try original.write(to: path, tag: tag)

        let gallery = try Gallery(contentsOf: path, parameters: parameters, tag: tag, context: context)
        #expect(gallery.count == entries.count && Set(gallery.faceIDs) == Set(entries.map(\.face)))
        func check(_ step: String) throws {
            for matcher in [Matcher.weightedChiSquare, .restrictedNBNN, .nbnn] {
                let options = SearchOptions(matcher: matcher, weights: .uniform(columns: 5, rows: 4))
                try MatcherReferenceTests.searchMatchesReference(
                    gallery, probe, entries: entries, options: options,
                    context: "\(step): \(matcher) \(choice), seed \(generator.seed)")
            }
        }
        try check("read from the file")
        try gallery.append(Array(all[40...]))
        entries += all[40...]
        try check("faces added")
        try gallery.remove(face: entries[0].face)
        entries.removeFirst()
        try check("a face removed")
        #expect(context.fallbackReason == nil, "\(context.fallbackReason ?? "")")
    }

    @Test func filesOfOtherFacesOrDamagedOnesAreTypedErrors() throws {
        var generator = SeededGenerator()
        let parameters = DescriptorParameters(uniform: true, gridColumns: 5, gridRows: 4)
        let entries = RandomGallery.entries(parameters, faces: 12, counted: true, using: &generator)
        let context = RenderContext(device: .cpu)
        let gallery = Gallery(parameters: parameters, context: context)
        try gallery.append(entries)
        let path = Self.temporaryFile(), tag = Data("state one".utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try gallery.write(to: path, tag: tag)
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        func reason(_ path: String, tag: Data = tag, parameters: DescriptorParameters = parameters) -> String? {
            Self.reason(reading: path) { () throws(RecognitionError) in
                _ = try Gallery(contentsOf: path, parameters: parameters, tag: tag, context: context)
            }
        }
        func reason(of bytes: Data) throws -> String? {
            try bytes.write(to: URL(fileURLWithPath: path))
            return reason(path)
        }
        #expect(reason(path) == nil)
        #expect(reason(path + "-missing") == "no such file")
        #expect(reason(path, tag: Data("state two".utf8)) == "it holds another state of the faces")
        #expect(reason(path, parameters: .standard)?.hasPrefix("it holds faces described with") == true)
        #expect(try reason(of: Data("not a gallery at all, just text".utf8)) == "not a gallery file")
        #expect(try reason(of: Data()) == "not a gallery file")
        #expect(try reason(of: written.prefix(written.count - 100))?.contains("past the file's end") == true)
        #expect(try reason(of: written + Data(count: 8))?.contains("bytes where its faces take") == true)
        // The stored forms end the file, before 8 spare bytes; the first form starts with its form byte, then
        // its first block's bitmap. The layout check keeps a search within each form (not its values, which
        // were checked when first stored): an unknown form and bins past the last are refused.
        let formBytes = entries.reduce(0) { $0 + $1.descriptor.encoded().count }, first = written.count - 8 - formBytes
        var damaged = written
        damaged[first] = 7
        #expect(try reason(of: damaged) == "\(entries[0].face): unknown stored form 7")
        damaged = written
        damaged[first + 8] |= 0x80  // bin 63 of 59
        #expect(try reason(of: damaged) == "\(entries[0].face): block 0 has bin 63 of 59")
    }

    /// A writer killed before it renamed its new file leaves it behind; the next writer removes it, not the
    /// new file of a writer still running.
    @Test func newFilesOfKilledWritersAreRemoved() throws {
        let folder = NSTemporaryDirectory() + "gallery-files-\(UUID().uuidString)", path = folder + "/cbir.sqlite-faces"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let abandoned = "cbir.sqlite-faces.\(ended.processIdentifier).77.tmp",
            running = "cbir.sqlite-faces.\(getpid()).78.tmp"
        for name in [abandoned, running] { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        try Gallery(parameters: .standard, context: RenderContext(device: .cpu)).write(to: path, tag: Data([9]))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["cbir.sqlite-faces", running])
        let empty = try Gallery(
            contentsOf: path, parameters: .standard, tag: Data([9]), context: RenderContext(device: .cpu))
        #expect(empty.count == 0)
    }
}
