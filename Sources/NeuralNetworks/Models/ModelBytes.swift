/// A stretch of a model file's bytes read front to back. Offsets are the file's, so that every error
/// names the byte where the contents went wrong.
struct ModelBytes {
    let path: String
    let bytes: [UInt8]
    /// Where reading stops: the end of the file, or of the part being read (a zip entry).
    let end: Int
    private(set) var offset: Int

    /// The bytes `range` of `bytes` (default: all of them), read from the start of the range.
    init(path: String, bytes: [UInt8], range: Range<Int>? = nil) {
        self.path = path
        self.bytes = bytes
        offset = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    var isAtEnd: Bool { offset == end }

    func malformed(_ reason: String, at position: Int? = nil) -> ModelError {
        .malformed(path: path, offset: position ?? offset, reason: reason)
    }

    /// The next `count` bytes, or a truncation error naming how many were missing.
    mutating func take(_ count: Int) throws(ModelError) -> ArraySlice<UInt8> {
        guard count >= 0 else { throw malformed("negative length \(count)") }
        guard count <= end - offset else { throw .truncated(path: path, offset: end, needed: count - (end - offset)) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func byte() throws(ModelError) -> UInt8 {
        try take(1).first ?? 0
    }

    /// A little-endian unsigned integer of `T`'s size.
    mutating func littleEndian<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(ModelError) -> T {
        try take(T.bitWidth / 8).reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }

    /// Moves to `position`, which must lie within the bytes being read.
    mutating func seek(to position: Int) throws(ModelError) {
        guard position >= 0, position <= end else {
            throw malformed("offset \(position) lies outside the file's \(end) bytes")
        }
        offset = position
    }
}
