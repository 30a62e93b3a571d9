/// JPEGs given an Exif block, for tests of what the decoder and the catalog read of it.
public enum ExifBlock {
    /// `jpeg` (a JPEG's bytes) with an APP1 Exif segment after its SOI: in its first directory the orientation
    /// (0x0112) and DateTime (0x0132) where given, and DateTimeOriginal (0x9003) in an Exif directory where
    /// `dateTaken` is given; dates as cameras write them (`YYYY:MM:DD HH:MM:SS`).
    public static func jpeg(
        _ jpeg: [UInt8], orientation: Int? = nil, dateTime: String? = nil, dateTaken: String? = nil,
        bigEndian: Bool = false
    ) -> [UInt8] {
        func bytes(_ value: Int, _ size: Int) -> [UInt8] {
            let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return bigEndian ? little.reversed() : little
        }
        func text(_ value: String) -> [UInt8] { Array(value.utf8) + [0] }
        let firstCount = (orientation == nil ? 0 : 1) + (dateTime == nil ? 0 : 1) + (dateTaken == nil ? 0 : 1)
        let exifDirectory = 8 + 2 + 12 * firstCount + 4
        var data = exifDirectory + (dateTaken == nil ? 0 : 18)
        var tail: [UInt8] = []
        /// An ASCII entry whose text lies in the tail, after the directories.
        func textEntry(_ tag: Int, _ value: String) -> [UInt8] {
            let stored = text(value)
            defer {
                tail += stored
                data += stored.count
            }
            return bytes(tag, 2) + bytes(2, 2) + bytes(stored.count, 4) + bytes(data, 4)
        }
        var first = bytes(firstCount, 2)
        if let orientation { first += bytes(0x0112, 2) + bytes(3, 2) + bytes(1, 4) + bytes(orientation, 2) + [0, 0] }
        if let dateTime { first += textEntry(0x0132, dateTime) }
        if dateTaken != nil { first += bytes(0x8769, 2) + bytes(4, 2) + bytes(1, 4) + bytes(exifDirectory, 4) }
        first += bytes(0, 4)
        let exif = dateTaken.map { bytes(1, 2) + textEntry(0x9003, $0) + bytes(0, 4) } ?? []
        let tiff = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + bytes(42, 2) + bytes(8, 4) + first + exif + tail
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }
}
