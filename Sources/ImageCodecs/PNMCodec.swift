import ImageKernels

/// Netpbm gray and colour maps: P2 and P3 (text), P5 and P6 (binary); samples above 8 bits are
/// scaled to 0...255.
enum PNMCodec {
    static func decode(_ bytes: [UInt8], path: String, options: DecodingOptions) throws(ImageCodecError) -> PixelBuffer
    {
        var reader = Reader(bytes: bytes, path: path)
        let kind = bytes[1]
        let (width, height) = try reader.size()
        let maximum = try reader.headerNumber("maximum value")
        guard (1...65535).contains(maximum) else {
            throw .corrupt(path: path, detail: "maximum value \(maximum) is outside 1...65535")
        }
        try ImageDecoder.checkSize(width: width, height: height, path: path, options: options)
        let channels = kind == UInt8(ascii: "3") || kind == UInt8(ascii: "6") ? 3 : 1
        let count = width * height * channels
        let text = kind == UInt8(ascii: "2") || kind == UInt8(ascii: "3")
        // Refused before the samples are allocated: a few bytes of header must not cost megabytes.
        // A text sample takes a digit and the whitespace before it; a binary one, one or two bytes.
        let size = text ? 2 : maximum < 256 ? 1 : 2
        let available = bytes.count - reader.position - (text ? 0 : 1)
        guard available >= count * size else {
            throw .truncated(
                path: path, detail: "\(max(available, 0)) bytes of pixel data, at least \(count * size) needed")
        }
        func scaled(_ value: Int) throws(ImageCodecError) -> UInt8 {
            guard value <= maximum else { throw .corrupt(path: path, detail: "sample \(value) exceeds \(maximum)") }
            return maximum == 255 ? UInt8(value) : UInt8((value * 255 + maximum / 2) / maximum)
        }
        let reduction = ImageDecoder.reduction(width: width, height: height, minimumLongSide: options.minimumLongSide)
        return try ImageDecoder.decoding(
            width: width, height: height, channels: channels, reduction: reduction,
            path: path
        ) { () throws(ImageCodecError) in
            var samples = [UInt8](repeating: 0, count: count)
            if text {
                for i in 0..<count { samples[i] = try scaled(try reader.sampleNumber(i, of: count)) }
            } else {
                reader.position += 1  // the single whitespace after the maximum value
                for i in 0..<count {
                    let at = reader.position + i * size
                    samples[i] = try scaled(size == 1 ? Int(bytes[at]) : Int(bytes[at]) << 8 | Int(bytes[at + 1]))
                }
            }
            return samples.withUnsafeBufferPointer {
                ImageDecoder.planar(
                    interleaved: $0, width: width, height: height, channels: channels, reduction: reduction)
            }
        }
    }

    /// The size in the header; nil when it cannot be read.
    static func size(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var reader = Reader(bytes: bytes, path: "")
        return try? reader.size()
    }

    /// Walks the header and text samples: numbers separated by whitespace, `#` comments to end of line.
    private struct Reader {
        let bytes: [UInt8]
        let path: String
        var position = 0

        /// Width and height, after the two-byte magic number.
        mutating func size() throws(ImageCodecError) -> (width: Int, height: Int) {
            position = 2
            return (try headerNumber("width"), try headerNumber("height"))
        }

        mutating func headerNumber(_ what: String) throws(ImageCodecError) -> Int {
            guard let value = try number() else {
                throw .truncated(path: path, detail: "header ends before the \(what)")
            }
            return value
        }

        mutating func sampleNumber(_ index: Int, of count: Int) throws(ImageCodecError) -> Int {
            guard let value = try number() else { throw .truncated(path: path, detail: "\(index) of \(count) samples") }
            return value
        }

        private mutating func number() throws(ImageCodecError) -> Int? {
            while position < bytes.count {
                if bytes[position] == UInt8(ascii: "#") {
                    while position < bytes.count && bytes[position] != UInt8(ascii: "\n") { position += 1 }
                } else if [9, 10, 11, 12, 13, 32].contains(bytes[position]) {
                    position += 1
                } else {
                    break
                }
            }
            guard position < bytes.count else { return nil }
            var value = 0, digits = 0
            while position < bytes.count, (48...57).contains(bytes[position]) {
                value = value * 10 + Int(bytes[position] - 48)
                digits += 1
                position += 1
                guard value <= 1 << 40 else { throw .corrupt(path: path, detail: "number too large in header") }
            }
            guard digits > 0 else {
                throw .corrupt(path: path, detail: "unexpected byte \(bytes[position]) at \(position)")
            }
            return value
        }
    }
}
