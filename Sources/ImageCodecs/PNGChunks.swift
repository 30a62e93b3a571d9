/// The chunks of a PNG file, in order, up to and including IEND: what both PNG readers walk before they
/// decode (``PNGCodec`` to refuse impossible lengths, ``PlainPNG`` to find the image data).
struct PNGChunks {
    /// One chunk: its type and where its data lies in the file (its CRC follows).
    struct Chunk {
        /// Four letters in a valid file; a byte that is not printable ASCII shows as "?".
        let type: String
        /// The data's bytes in the file.
        let data: Range<Int>
        /// Whether the type is four ASCII letters, as PNG requires (libpng refuses any other).
        var isNamedValidly: Bool { type.allSatisfy { $0.isASCII && $0.isLetter } }
        /// Whether decoders must understand it (an upper-case first letter).
        var isCritical: Bool { type.first?.isUppercase ?? false }
    }

    /// A chunk whose length claims more bytes than the file has left after its header.
    struct Overrun {
        let type: String
        let length: Int
        let left: Int
    }

    /// The whole chunks from the signature on, ending at IEND or where the file does.
    let chunks: [Chunk]
    /// Set where the walk stopped at a chunk longer than the rest of the file.
    let overrun: Overrun?

    init(_ bytes: [UInt8]) {
        var chunks: [Chunk] = [], overrun: Overrun?
        var position = 8  // after the signature
        while position + 8 <= bytes.count {
            let length = Self.number(in: bytes, at: position)
            let type = String(
                bytes[position + 4..<position + 8].map {
                    (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "?"
                })
            let left = bytes.count - position - 12  // after the chunk's length, type and CRC
            guard length <= left else {
                overrun = Overrun(type: type, length: length, left: max(left, 0))
                break
            }
            chunks.append(Chunk(type: type, data: position + 8..<position + 8 + length))
            if type == "IEND" { break }
            position += 12 + length
        }
        self.chunks = chunks
        self.overrun = overrun
    }

    /// The four bytes at `offset` as a big-endian number, as PNG stores lengths, sizes and CRCs.
    static func number(in bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }
}
