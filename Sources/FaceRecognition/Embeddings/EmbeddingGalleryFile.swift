import Foundation
import ImageKernels

/// An embedding gallery's rows in a file (faces' embeddings, photos' prints), so that a new process maps
/// the file and copies it once instead of reading and decoding every row from its database. Like
/// ``StoredFacesFile`` it carries its writer's tag, which a reader compares with its own to know that the
/// file still holds the rows it expects.
///
/// Layout, little-endian: the magic `FSEMBED1`; the tag's byte count and the row length (UInt32 each); the
/// row count (UInt64); the tag; from the next multiple of 8, a face and an image (Int64 each) per row; from
/// the next multiple of 64, the rows' floats back to back.
enum EmbeddingGalleryFile {
    private static let magic = Array("FSEMBED1".utf8)

    /// The rows in the file at `path`; an error where the file is missing, was written with another tag or
    /// row length, or is damaged.
    static func read(_ path: String, length: Int, tag: Data) throws(RecognitionError)
        -> (faces: [FaceID], images: [ImageID], rows: [Float])
    {
        func damaged(_ reason: String) -> RecognitionError { .galleryFile(path: path, reason: reason) }
        let size: Int
        do {
            let file: Int32
            (file, size) = try RegularFile.open(path)
            close(file)
        } catch {
            throw damaged(error.description)
        }
        guard size >= 24 else { throw damaged("not an embeddings file") }
        guard let memory = HostMemory(mappingFileAt: path) else { throw damaged("cannot be mapped") }
        let bytes = UnsafeRawBufferPointer(memory.bytes)
        guard bytes.count >= 24, bytes[0..<8].elementsEqual(magic) else { throw damaged("not an embeddings file") }
        let tagCount = Int(ReplacedFile.integer(bytes, at: 8, UInt32.self))
        let storedLength = Int(ReplacedFile.integer(bytes, at: 12, UInt32.self))
        let count = ReplacedFile.integer(bytes, at: 16, UInt64.self)
        guard 24 + tagCount <= bytes.count, count <= UInt64(Int32.max) else { throw damaged("its header is damaged") }
        guard bytes[24..<24 + tagCount].elementsEqual(tag) else { throw damaged("it holds another state of the rows") }
        guard storedLength == length else { throw damaged("its rows have \(storedLength) values, not \(length)") }
        let rowCount = Int(count), ids = ReplacedFile.roundUp(24 + tagCount, to: 8)
        let values = ReplacedFile.roundUp(ids + rowCount * 16, to: 64)
        guard values + rowCount * length * 4 == bytes.count else {
            throw damaged(
                "\(bytes.count) bytes where \(rowCount) rows of \(length) take \(values + rowCount * length * 4)")
        }
        let faces = (0..<rowCount).map { FaceID(ReplacedFile.integer(bytes, at: ids + $0 * 16, Int64.self)) }
        let images = (0..<rowCount).map { ImageID(ReplacedFile.integer(bytes, at: ids + $0 * 16 + 8, Int64.self)) }
        let rows = [Float](unsafeUninitializedCapacity: rowCount * length) { rows, initialized in
            for i in 0..<rowCount * length {
                rows[i] = Float(bitPattern: ReplacedFile.integer(bytes, at: values + i * 4, UInt32.self))
            }
            initialized = rowCount * length
        }
        return (faces, images, rows)
    }

    /// Writes the rows to a file at `path` with `tag`, replacing any there in one step.
    static func write(
        faces: [FaceID], images: [ImageID], rows: ArraySlice<Float>, length: Int, to path: String, tag: Data
    ) throws(RecognitionError) {
        var header = magic
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        append(UInt32(tag.count))
        append(UInt32(length))
        append(UInt64(faces.count))
        header += tag
        header += repeatElement(0, count: ReplacedFile.roundUp(header.count, to: 8) - header.count)
        for (face, image) in zip(faces, images) {
            append(face.rawValue)
            append(image.rawValue)
        }
        header += repeatElement(0, count: ReplacedFile.roundUp(header.count, to: 64) - header.count)
        try ReplacedFile.write(path) { file throws(RecognitionError) in
            try file.write(header)
            try rows.map { $0.bitPattern.littleEndian }.withUnsafeBytes { values in
                Result { () throws(RecognitionError) in try file.write(values) }
            }.get()
        }
    }
}
