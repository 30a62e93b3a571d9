/// The entries of a zip archive whose files are stored uncompressed, as `torch.save` writes them: each
/// entry's name and where its bytes lie in the archive. Compressed entries and zip64 archives are refused
/// by name; every offset and size is checked against the file before use.
struct StoredZipArchive {
    /// Each entry's bytes, by name.
    let entries: [String: Range<Int>]

    /// Whether `bytes` start like a zip archive (a local file header).
    static func isZip(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
    }

    init(path: String, bytes: [UInt8]) throws(ModelError) {
        // The end-of-central-directory record: the last signature within its 22 bytes plus a comment.
        let signature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        guard bytes.count >= 22,
            let end = stride(from: bytes.count - 22, through: lowest, by: -1).first(where: {
                bytes[$0..<$0 + 4].elementsEqual(signature)
            })
        else { throw .malformed(path: path, offset: bytes.count, reason: "a zip archive without its directory") }
        var record = ModelBytes(path: path, bytes: bytes, range: end + 10..<bytes.count)
        let count = Int(try record.littleEndian(UInt16.self))
        _ = try record.littleEndian(UInt32.self)  // the directory's size
        let directory = Int(try record.littleEndian(UInt32.self))
        guard count != 0xFFFF, directory != 0xFFFF_FFFF else { throw .unsupported(path: path, what: "zip64 archives") }
        let comment = Int(try record.littleEndian(UInt16.self))
        let after = bytes.count - (end + 22)
        guard comment == after else {
            throw .malformed(
                path: path, offset: end + 22,
                reason: "\(after) bytes after the archive's directory, whose comment claims \(comment)")
        }

        var reader = ModelBytes(path: path, bytes: bytes, range: 0..<end)
        try reader.seek(to: directory)
        var entries: [String: Range<Int>] = [:]
        for _ in 0..<count {
            let start = reader.offset
            guard try reader.littleEndian(UInt32.self) == 0x0201_4B50 else {
                throw reader.malformed("a zip directory entry without its signature", at: start)
            }
            _ = try reader.take(6)  // versions, flags
            let method = try reader.littleEndian(UInt16.self)
            _ = try reader.take(8)  // time, date, CRC
            let size = Int(try reader.littleEndian(UInt32.self))
            let uncompressed = Int(try reader.littleEndian(UInt32.self))
            let nameLength = Int(try reader.littleEndian(UInt16.self))
            let extraLength = Int(try reader.littleEndian(UInt16.self))
            let commentLength = Int(try reader.littleEndian(UInt16.self))
            _ = try reader.take(8)  // disk, attributes
            let header = Int(try reader.littleEndian(UInt32.self))
            let name = String(decoding: try reader.take(nameLength), as: UTF8.self)
            _ = try reader.take(extraLength + commentLength)
            guard method == 0, size == uncompressed else {
                throw .unsupported(path: path, what: "compressed zip entry \(name) (method \(method))")
            }
            guard size != 0xFFFF_FFFF, header != 0xFFFF_FFFF else {
                throw .unsupported(path: path, what: "zip64 entry \(name)")
            }
            entries[name] = try Self.data(of: name, header: header, size: size, path: path, bytes: bytes)
        }
        self.entries = entries
    }

    /// Where an entry's bytes lie: after its local header, whose name and extra field have their own lengths.
    private static func data(of name: String, header: Int, size: Int, path: String, bytes: [UInt8])
        throws(ModelError) -> Range<Int>
    {
        var local = ModelBytes(path: path, bytes: bytes)
        try local.seek(to: header)
        guard try local.littleEndian(UInt32.self) == 0x0403_4B50 else {
            throw local.malformed("zip entry \(name) has no local header", at: header)
        }
        _ = try local.take(22)
        let nameLength = Int(try local.littleEndian(UInt16.self)),
            extraLength = Int(try local.littleEndian(UInt16.self))
        _ = try local.take(nameLength + extraLength)
        let start = local.offset
        _ = try local.take(size)
        return start..<start + size
    }
}
