import Foundation
import ImageKernels

/// A gallery's stored faces in a file laid out as ``StoredFaces`` holds them, so that a new process maps
/// the file and searches it in place instead of reading every face from its database and copying it
/// (about 6 KB a face). The file carries a tag from its writer, which a reader compares with its own to
/// know that the file still holds the faces it expects (a database stamps each state of its faces with a
/// random tag); its parameters; and each face's identifiers and place.
///
/// Layout, little-endian: the magic `FSFACES1`; the tag's and the parameters' byte counts (UInt32 each);
/// the face count (UInt64); the tag; the parameters as JSON; from the next multiple of 8, a face, an image
/// (Int64 each) and a stored form's byte count (UInt64) per face; from the next multiple of 64, the
/// stored forms back to back; 8 zero bytes.
enum StoredFacesFile {
    private static let magic = Array("FSFACES1".utf8)
    private static let entryBytes = 24

    /// The stored faces in the file at `path`, mapped; an error where the file is missing, was written
    /// with another tag or parameters, or is damaged. The header is read and checked first, so that a file
    /// of other faces is not mapped.
    static func read(_ path: String, parameters: DescriptorParameters, tag: Data) throws(RecognitionError)
        -> StoredFaces
    {
        var start: [UInt8]
        do {
            let (file, size) = try RegularFile.open(path)
            defer { close(file) }
            start = [UInt8](repeating: 0, count: min(size, 64 << 10))
            let count = start.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            start.removeLast(start.count - max(0, count))
        } catch {
            throw .galleryFile(path: path, reason: error.description)
        }
        _ = try start.withUnsafeBytes { bytes in
            Result { () throws(RecognitionError) in try header(bytes, path: path, parameters: parameters, tag: tag) }
        }.get()
        guard let memory = HostMemory(mappingFileAt: path) else {
            throw .galleryFile(path: path, reason: "cannot be mapped")
        }
        let bytes = UnsafeRawBufferPointer(memory.bytes)
        let (faceCount, entries) = try header(bytes, path: path, parameters: parameters, tag: tag)
        var at = ReplacedFile.roundUp(entries + faceCount * entryBytes, to: 64)
        guard at <= bytes.count else { throw .galleryFile(path: path, reason: "it ends in its list of faces") }
        var forms: [(face: FaceID, image: ImageID, range: Range<Int>)] = []
        forms.reserveCapacity(faceCount)
        for index in 0..<faceCount {
            let entry = entries + index * entryBytes, count = ReplacedFile.integer(bytes, at: entry + 16, UInt64.self)
            guard count <= UInt64(bytes.count - at) else {
                throw .galleryFile(path: path, reason: "face \(index + 1) of \(faceCount) ends past the file's end")
            }
            forms.append(
                (
                    FaceID(ReplacedFile.integer(bytes, at: entry, Int64.self)),
                    ImageID(ReplacedFile.integer(bytes, at: entry + 8, Int64.self)),
                    at..<at + Int(count)
                ))
            at += Int(count)
        }
        guard at + StoredFaces.spareBytes == bytes.count else {
            throw .galleryFile(
                path: path, reason: "\(bytes.count) bytes where its faces take \(at + StoredFaces.spareBytes)")
        }
        do {
            return try StoredFaces(parameters: parameters, memory: memory, forms: forms)
        } catch {
            guard case .damagedDescriptor(let reason) = error else {
                throw .galleryFile(path: path, reason: error.description)
            }
            throw .galleryFile(path: path, reason: reason)
        }
    }

    /// Checks a file's header, given at least its first bytes: its face count and where its list of faces begins.
    private static func header(
        _ bytes: UnsafeRawBufferPointer, path: String, parameters: DescriptorParameters,
        tag: Data
    ) throws(RecognitionError) -> (faceCount: Int, entries: Int) {
        func damaged(_ reason: String) -> RecognitionError { .galleryFile(path: path, reason: reason) }
        guard bytes.count >= 24, bytes[0..<8].elementsEqual(magic) else { throw damaged("not a gallery file") }
        let tagCount = Int(ReplacedFile.integer(bytes, at: 8, UInt32.self)),
            parametersCount = Int(ReplacedFile.integer(bytes, at: 12, UInt32.self))
        let faceCount = ReplacedFile.integer(bytes, at: 16, UInt64.self)
        guard 24 + tagCount + parametersCount <= bytes.count, faceCount <= UInt64(Int32.max) else {
            throw damaged("its header is damaged")
        }
        guard bytes[24..<24 + tagCount].elementsEqual(tag) else { throw damaged("it holds another state of the faces") }
        let stored = try? JSONDecoder().decode(
            DescriptorParameters.self, from: Data(bytes[24 + tagCount..<24 + tagCount + parametersCount]))
        guard stored == parameters else {
            throw damaged(
                """
                it holds faces described with \(stored.map(String.init(describing:)) ?? "unreadable parameters"), \
                not \(parameters)
                """
            )
        }
        return (Int(faceCount), ReplacedFile.roundUp(24 + tagCount + parametersCount, to: 8))
    }

    /// Writes `stored`'s faces to a file at `path` with `tag`, replacing any there in one step (by renaming a
    /// complete new file over it), so that a reader maps either the old file or the new one.
    static func write(_ stored: StoredFaces, to path: String, tag: Data) throws(RecognitionError) {
        let live = stored.slots.compactMap { $0 }
        let parameters = (try? JSONEncoder().encode(stored.parameters)) ?? Data()
        var header = magic
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        append(UInt32(tag.count))
        append(UInt32(parameters.count))
        append(UInt64(live.count))
        header += tag
        header += parameters
        header += repeatElement(0, count: ReplacedFile.roundUp(header.count, to: 8) - header.count)
        for entry in live {
            append(entry.face.rawValue)
            append(entry.image.rawValue)
            append(UInt64(entry.range.count))
        }
        header += repeatElement(0, count: ReplacedFile.roundUp(header.count, to: 64) - header.count)
        try ReplacedFile.write(path) { file throws(RecognitionError) in
            try file.write(header)
            // The forms, each run of them that lies back to back in memory in one piece.
            var run: Range<Int>?
            for entry in live {
                if let current = run, current.upperBound == entry.range.lowerBound {
                    run = current.lowerBound..<entry.range.upperBound
                    continue
                }
                if let current = run { try file.write(UnsafeRawBufferPointer(rebasing: stored.memory.bytes[current])) }
                run = entry.range
            }
            if let current = run { try file.write(UnsafeRawBufferPointer(rebasing: stored.memory.bytes[current])) }
            try file.write([UInt8](repeating: 0, count: StoredFaces.spareBytes))
        }
    }

}
