import BenchmarkSupport
import FaceRecognition
import Foundation
import ImageKernels
import TestSupport
import Testing

/// An embedding gallery written to its file and read back searches as the gallery it was written from, and
/// still after rows are added and removed; a file of other rows (another tag or row length), a missing,
/// truncated or damaged one is a typed error naming the file.
@Suite struct EmbeddingGalleryFileTests {
    static func randomGallery(length: Int, rows: Int, using generator: inout SeededGenerator) throws
        -> EmbeddingGallery
    {
        let gallery = EmbeddingGallery(length: length, context: RenderContext(device: .cpu))
        for row in 0..<rows {
            let embedding = (0..<length).map { _ in Float.random(in: -1...1, using: &generator) }
            try gallery.append([(embedding, FaceID(Int64(row * 3 + 1)), ImageID(Int64(row / 2 + 100)))])
        }
        return gallery
    }

    static func hits(_ gallery: EmbeddingGallery, _ probe: [Float]) throws -> [String] {
        var top = TopFaces(1000)
        try gallery.search(probe, into: &top)
        return top.matches.map(\.description)
    }

    @Test func aGalleryReadFromItsFileSearchesAsTheOriginal() throws {
        var generator = SeededGenerator()
        let length = Int.random(in: 3...140, using: &generator), rows = Int.random(in: 1...90, using: &generator)
        let gallery = try Self.randomGallery(length: length, rows: rows, using: &generator)
        let path = StoredFacesFileTests.temporaryFile(), tag = Data("state one".utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try gallery.write(to: path, tag: tag)
        let read = try EmbeddingGallery(
            contentsOf: path, length: length, tag: tag, context: RenderContext(device: .cpu))
        let probe = (0..<length).map { _ in Float.random(in: -1...1, using: &generator) }
        let about = "\(rows) rows of \(length), seed \(generator.seed)"
        #expect(read.count == rows && Set(read.faceIDs) == Set(gallery.faceIDs), "\(about)")
        #expect(try Self.hits(read, probe) == Self.hits(gallery, probe), "\(about)")
        let added = (0..<length).map { _ in Float.random(in: -1...1, using: &generator) }
        for changed in [gallery, read] {
            try changed.append([(added, FaceID(9999), ImageID(7))])
            try changed.remove(face: FaceID(1))
        }
        #expect(try Self.hits(read, probe) == Self.hits(gallery, probe), "after a change: \(about)")
    }

    @Test func filesOfOtherRowsOrDamagedOnesAreTypedErrors() throws {
        var generator = SeededGenerator()
        let gallery = try Self.randomGallery(length: 16, rows: 5, using: &generator)
        let path = StoredFacesFileTests.temporaryFile(), tag = Data("state one".utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try gallery.write(to: path, tag: tag)
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        func reason(_ path: String, tag: Data = tag, length: Int = 16) -> String? {
            StoredFacesFileTests.reason(reading: path) { () throws(RecognitionError) in
                _ = try EmbeddingGallery(
                    contentsOf: path, length: length, tag: tag, context: RenderContext(device: .cpu))
            }
        }
        func reason(of bytes: Data) throws -> String? {
            try bytes.write(to: URL(fileURLWithPath: path))
            return reason(path)
        }
        #expect(reason(path) == nil)
        #expect(reason(path + "-missing") == "no such file")
        #expect(reason(path, tag: Data("state two".utf8)) == "it holds another state of the rows")
        #expect(reason(path, length: 128) == "its rows have 16 values, not 128")
        #expect(try reason(of: Data("not a gallery at all, just text".utf8)) == "not an embeddings file")
        #expect(try reason(of: Data()) == "not an embeddings file")
        #expect(try reason(of: written.prefix(written.count - 4))?.contains("bytes where 5 rows of 16 take") == true)
        #expect(try reason(of: written + Data(count: 4))?.contains("bytes where 5 rows of 16 take") == true)
        var damaged = written
        damaged[16] = 0xff  // a row count beyond any file
        damaged[23] = 0xff
        #expect(try reason(of: damaged) == "its header is damaged")
    }
}
