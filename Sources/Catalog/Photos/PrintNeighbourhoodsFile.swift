import Foundation
import PhotoSimilarity

/// The photos' neighbour lists (``PrintNeighbourhoods``) in a file beside the database, a cache like the
/// galleries' files: with the tag of the prints they were found among, so that a new process that finds the
/// prints unchanged reads them, and one that finds them changed updates them rather than finding them all
/// again.
///
/// Layout, little-endian: the magic `FSNEIGH1`; the tag's byte count and the neighbours a print keeps
/// (UInt32 each); the count of lists (UInt64); the tag; then each list: the print's id (Int64), its length
/// (UInt32), and each neighbour's id (Int64) and similarity (Float32).
enum PrintNeighbourhoodsFile {
    private static let magic = Array("FSNEIGH1".utf8)

    /// The lists in the file at `path` and the tag they were saved with; nil where the file is missing, keeps
    /// another count of neighbours, or is damaged.
    static func read(_ path: String, count: Int) -> (neighbourhoods: PrintNeighbourhoods, tag: Data)? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> (PrintNeighbourhoods, Data)? in
            var offset = 0
            func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
                guard offset + MemoryLayout<T>.size <= bytes.count else { return nil }
                defer { offset += MemoryLayout<T>.size }
                return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
            }
            guard bytes.count >= 24, bytes[0..<8].elementsEqual(magic) else { return nil }
            offset = 8
            guard let tagCount = integer(UInt32.self), integer(UInt32.self) == UInt32(count),
                let listCount = integer(UInt64.self), offset + Int(tagCount) <= bytes.count
            else { return nil }
            let tag = Data(bytes[offset..<offset + Int(tagCount)])
            offset += Int(tagCount)
            var lists: [Int64: [PrintNeighbourhoods.Neighbour]] = [:]
            for _ in 0..<listCount {
                guard let id = integer(Int64.self), let length = integer(UInt32.self), length <= count else {
                    return nil
                }
                var list: [PrintNeighbourhoods.Neighbour] = []
                for _ in 0..<length {
                    guard let neighbour = integer(Int64.self), let bits = integer(UInt32.self) else { return nil }
                    list.append(.init(id: neighbour, similarity: Float(bitPattern: bits)))
                }
                lists[id] = list
            }
            guard offset == bytes.count else { return nil }
            return (PrintNeighbourhoods(count: count, lists: lists), tag)
        }
    }

    /// Writes the lists to a file at `path` with `tag`, replacing any there in one step; a cache that cannot
    /// be written is left for the next process to make again.
    static func write(_ neighbourhoods: PrintNeighbourhoods, to path: String, tag: Data) {
        var bytes = magic
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        append(UInt32(tag.count))
        append(UInt32(neighbourhoods.count))
        append(UInt64(neighbourhoods.lists.count))
        bytes += tag
        for (id, list) in neighbourhoods.lists.sorted(by: { $0.key < $1.key }) {
            append(id)
            append(UInt32(list.count))
            for neighbour in list {
                append(neighbour.id)
                append(neighbour.similarity.bitPattern)
            }
        }
        try? Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
