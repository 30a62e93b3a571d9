import Foundation

/// The tags of a JPEG's Exif block (its APP1 segment: a TIFF header and image file directories), read for
/// what the decoder and the catalog use of them. Every offset is checked against the block: a damaged or
/// hostile block reads as no tag, never past its end.
public struct ExifTags: Sendable {
    private let tiff: [UInt8]
    private let littleEndian: Bool

    /// The Exif block of a JPEG's bytes, if it has a readable one before its pixel data.
    public init?(jpeg bytes: [UInt8]) {
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }  // pixel data starts: no Exif before it
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else { return nil }
            let segment = bytes[(position + 4)..<(position + 2 + length)]
            if marker == 0xE1, segment.starts(with: Array("Exif".utf8) + [0, 0]) {
                self.init(tiff: Array(segment.dropFirst(6)))
                return
            }
            position += 2 + length
        }
        return nil
    }

    /// A TIFF block: its byte order from its header, or nil.
    init?(tiff: [UInt8]) {
        guard tiff.count >= 8 else { return nil }
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.tiff = tiff
    }

    /// The orientation (tag 0x0112 of the first directory).
    public var orientation: Int? {
        entry(0x0112, in: firstDirectory).flatMap { read($0 + 8, 2) }
    }

    /// When the photo was taken: DateTimeOriginal (0x9003) of the Exif directory, else DateTime (0x0132) of
    /// the first, as the camera wrote it (`YYYY:MM:DD HH:MM:SS`, its local time, no zone) read as if in UTC:
    /// two photos of one camera compare right, a photo's true instant is not known.
    public var dateTaken: Date? {
        let exif = entry(0x8769, in: firstDirectory).flatMap { read($0 + 8, 4) }
        return (exif.flatMap { text(0x9003, in: $0) } ?? text(0x0132, in: firstDirectory)).flatMap(Self.date)
    }

    /// `YYYY:MM:DD HH:MM:SS` as a date in UTC; nil for anything else (blanks, zeros, a month 13).
    static func date(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard fields.count == 6, (1...9999).contains(fields[0]), (1...12).contains(fields[1]),
            (1...31).contains(fields[2]), (0...23).contains(fields[3]), (0...59).contains(fields[4]),
            (0...60).contains(fields[5])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar.date(
            from: DateComponents(
                year: fields[0], month: fields[1], day: fields[2], hour: fields[3], minute: fields[4], second: fields[5]
            ))
    }

    private var firstDirectory: Int? { read(4, 4) }

    /// Where the entry of `tag` lies in the directory at `directory`.
    private func entry(_ tag: Int, in directory: Int?) -> Int? {
        guard let directory, let count = read(directory, 2) else { return nil }
        for index in 0..<count {
            let at = directory + 2 + index * 12
            guard let found = read(at, 2) else { return nil }
            if found == tag { return at }
        }
        return nil
    }

    /// An ASCII entry's text, without its terminating zeros.
    private func text(_ tag: Int, in directory: Int?) -> String? {
        guard let at = entry(tag, in: directory), read(at + 2, 2) == 2, let count = read(at + 4, 4), count <= 64 else {
            return nil
        }
        guard let offset = count <= 4 ? at + 8 : read(at + 8, 4), offset >= 0, offset + count <= tiff.count else {
            return nil
        }
        let text = tiff[offset..<offset + count].prefix { $0 != 0 }
        return text.allSatisfy({ (0x20...0x7E).contains($0) }) ? String(decoding: text, as: UTF8.self) : nil
    }

    /// An unsigned integer of `size` bytes at `offset`, in the block's byte order.
    private func read(_ offset: Int, _ size: Int) -> Int? {
        guard offset >= 0, offset + size <= tiff.count else { return nil }
        let bytes = tiff[offset..<offset + size]
        return (littleEndian ? bytes.reversed() : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
    }
}
