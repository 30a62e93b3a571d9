import Foundation

/// File paths as strings that keep every byte: Linux names are bytes, not always UTF-8. Valid UTF-8 reads
/// as itself; any other byte b reads as the private-use scalar U+10FF00 + b (as do the bytes of such
/// scalars in a name, so that the mapping is one-to-one), and maps back to b when the file is opened.
public enum FileSystemPath {
    private static let escapeBase: UInt32 = 0x10_FF00

    /// A path's bytes as a string that `bytes(of:)` turns back into the same bytes.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        var result = String.UnicodeScalarView()
        var rest = bytes[...]
        while let first = rest.first {
            if let (scalar, length) = leadingScalar(rest), scalar.value < escapeBase {
                result.append(scalar)
                rest = rest.dropFirst(length)
            } else {
                result.append(Unicode.Scalar(escapeBase + UInt32(first)) ?? "\u{FFFD}")
                rest = rest.dropFirst()
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

    /// The path (or a line holding paths) for people to read on one line: bytes that are not UTF-8, and
    /// control characters (line breaks, tabs, terminal escapes), shown as `\xNN`.
    public static func displayed(_ path: String) -> String {
        var text = ""
        for scalar in path.unicodeScalars {
            if scalar.value >= escapeBase && scalar.value <= escapeBase + 0xFF {
                text += String(format: "\\x%02X", scalar.value - escapeBase)
            } else if scalar.properties.generalCategory == .control {
                text += String(format: "\\x%02X", scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// Whether the string holds bytes that were not UTF-8 (as `string(_:)` keeps them).
    public static func hasRawBytes(_ string: String) -> Bool {
        string.unicodeScalars.contains { $0.value >= escapeBase && $0.value <= escapeBase + 0xFF }
    }

    /// The folder that holds the last component of `path`, as dirname(1) names it: "a/b/c" → "a/b",
    /// "c" → ".", "/c" → "/", "a/b/" → "a". Foundation's `deletingLastPathComponent` stops the process on a
    /// name of one character ("x", "é"), so every path's folder is found here.
    public static func folder(of path: String) -> String {
        var scalars = Substring(path).unicodeScalars[...]
        while scalars.count > 1, scalars.last == "/" { scalars.removeLast() }
        guard let slash = scalars.lastIndex(of: "/") else { return "." }
        var folder = scalars[..<slash]
        while folder.count > 1, folder.last == "/" { folder.removeLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// The folders `path` passes through, outermost first: "/a/b/c" → "/a", "/a/b"; "a/b/c" → "a", "a/b".
    public static func ancestors(of path: String) -> [String] {
        var folders: [String] = []
        var folder = Self.folder(of: path)
        while folder != "/", folder != ".", folders.count < path.unicodeScalars.count {
            folders.insert(folder, at: 0)
            folder = Self.folder(of: folder)
        }
        return folders
    }

    /// Runs `body` with the path's bytes as a C string, for system calls.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (bytes(of: path).map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { buffer in
            // Never nil: the buffer holds at least the 0.
            guard let start = buffer.baseAddress else { return try "".withCString(body) }
            return try body(start)
        }
    }

    /// The scalar a well-formed UTF-8 sequence at the start of the bytes encodes, and its length; nil
    /// when they do not start with one (the standard library's decoder refuses overlong forms and surrogates).
    private static func leadingScalar(_ bytes: some Collection<UInt8>) -> (Unicode.Scalar, Int)? {
        guard let first = bytes.first else { return nil }
        let length =
            first < 0x80
            ? 1
            : first >= 0xC2 && first <= 0xDF
                ? 2
                : first >= 0xE0 && first <= 0xEF
                    ? 3
                    : first >= 0xF0 && first <= 0xF4 ? 4 : 0
        guard length > 0 else { return nil }
        var decoder = UTF8(), iterator = bytes.prefix(length).makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator), iterator.next() == nil,
            UTF8.width(scalar) == length
        else { return nil }
        return (scalar, length)
    }
}
