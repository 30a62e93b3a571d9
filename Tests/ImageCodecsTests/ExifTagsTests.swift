import Foundation
import ImageCodecs
import TestSupport
import Testing

/// When a photo was taken, by its Exif block: DateTimeOriginal before DateTime, in either byte order, and
/// nothing from blanks, impossible dates or a block cut short.
@Suite struct ExifTagsTests {
    let plain: [UInt8]

    init() throws { plain = try ImageEncoder.jpeg(FormatTests.quadrants, quality: 90) }

    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(
            from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    @Test func theDateTakenIsTheOriginalsElseTheFilesDate() {
        for bigEndian in [false, true] {
            let both = ExifBlock.jpeg(
                plain, orientation: 6, dateTime: "2024:05:01 10:00:00", dateTaken: "2023:12:31 23:59:58",
                bigEndian: bigEndian)
            #expect(ExifTags(jpeg: both)?.dateTaken == Self.utc(2023, 12, 31, 23, 59, 58))
            #expect(ExifTags(jpeg: both)?.orientation == 6)
            let fileDate = ExifBlock.jpeg(plain, dateTime: "2024:05:01 10:00:00", bigEndian: bigEndian)
            #expect(ExifTags(jpeg: fileDate)?.dateTaken == Self.utc(2024, 5, 1, 10, 0, 0))
        }
        #expect(ExifTags(jpeg: plain) == nil)
        #expect(ExifTags(jpeg: ExifBlock.jpeg(plain, orientation: 1))?.dateTaken == nil)
    }

    @Test func blankImpossibleAndCutDatesReadAsNone() {
        for text in ["0000:00:00 00:00:00", "    :  :     :  :  ", "2024:13:01 10:00:00", "2024:05:01", "x"] {
            #expect(ExifTags(jpeg: ExifBlock.jpeg(plain, dateTaken: text))?.dateTaken == nil, "\(text)")
        }
        let whole = ExifBlock.jpeg(plain, dateTaken: "2023:12:31 23:59:58")
        // Cut anywhere inside the segment (its length kept): it no longer fits the file.
        let segmentEnd = 4 + (Int(whole[4]) << 8 | Int(whole[5]))
        for cut in stride(from: 12, to: segmentEnd, by: 5) {
            #expect(ExifTags(jpeg: Array(whole.prefix(cut)))?.dateTaken == nil, "cut at \(cut)")
        }
    }
}
