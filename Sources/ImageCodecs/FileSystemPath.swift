import Foundation

/// File paths as strings that keep every byte: Linux names are bytes, not always UTF-8. Valid UTF-8 reads
/// as itself; any other byte b reads as the private-use scalar U+10FF00 + b (as do the bytes of such
/// scalars in a name, so that the mapping is one-to-one), and maps back to b when the file is opened.
public enum FileSystemPath {
    private static let escapeBase: UInt32 = 0x10_FF00

    /// A path's bytes as a string that `bytes(of:)` turns back into the same bytes.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        var result = String.UnicodeScalarView()
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let length = sequenceLength(bytes[index...])
            if length > 0, let scalar = String(decoding: bytes[index..<bytes.index(index, offsetBy: length)], as: UTF8.self).unicodeScalars.first,
               scalar.value < escapeBase {
                result.append(scalar)
                index = bytes.index(index, offsetBy: length)
            } else {
                result.append(Unicode.Scalar(escapeBase + UInt32(bytes[index])) ?? "\u{FFFD}")
                index = bytes.index(after: index)
            }
        }
        return String(result)
    }

    /// The bytes a string from `string(_:)` (or any string) names on disk.
    public static func bytes(of path: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in path.unicodeScalars {
            if scalar.value >= escapeBase && scalar.value <= escapeBase + 0xFF {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes += Array(String(scalar).utf8)
            }
        }
        return bytes
    }

    /// The path for people to read: bytes that are not UTF-8 shown as `\xNN`.
    public static func displayed(_ path: String) -> String {
        var text = ""
        for scalar in path.unicodeScalars {
            if scalar.value >= escapeBase && scalar.value <= escapeBase + 0xFF {
                text += String(format: "\\x%02X", scalar.value - escapeBase)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// Runs `body` with the path's bytes as a C string, for system calls.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (bytes(of: path).map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return try "".withCString(body) }  // never: the buffer holds the 0
            return try body(start)
        }
    }

    /// The length of the well-formed UTF-8 sequence the bytes start with, or 0 when they do not.
    private static func sequenceLength(_ bytes: some Collection<UInt8>) -> Int {
        guard let first = bytes.first else { return 0 }
        let length = first < 0x80 ? 1 : first >= 0xC2 && first <= 0xDF ? 2 : first >= 0xE0 && first <= 0xEF ? 3
            : first >= 0xF0 && first <= 0xF4 ? 4 : 0
        guard length > 0, bytes.count >= length else { return 0 }
        let sequence = Array(bytes.prefix(length))
        // Validate through the standard library's decoder: no overlong forms or surrogates.
        var decoder = UTF8(), iterator = sequence.makeIterator()
        if case .scalarValue = decoder.decode(&iterator), iterator.next() == nil { return length }
        return 0
    }
}
