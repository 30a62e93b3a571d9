import Foundation
import ImageCodecs
import ImageKernels

/// Faces side by side with captions under each, in one gray picture a person can look at.
enum MatchSheet {
    struct Cell {
        /// A gray face crop.
        let face: PixelBuffer
        let caption: [String]
    }

    /// A stored face thumbnail (JPEG) as a cell's gray face; `name` names it in errors.
    static func face(thumbnail: Data, name: String) throws -> PixelBuffer {
        try ImageDecoder.decode([UInt8](thumbnail), path: name, options: DecodingOptions(grayscale: true))
    }

    /// A photo file as a cell's gray picture: its long side 160 pixels.
    static func photo(_ file: String, context: RenderContext) throws -> PixelBuffer {
        let photo = try ImageDecoder.decode(contentsOf: file, options: DecodingOptions(grayscale: true))
        let scale = 160 / Double(max(photo.descriptor.width, photo.descriptor.height))
        return try context.render(
            Image(photo).resized(
                width: max(1, Int(Double(photo.descriptor.width) * scale)),
                height: max(1, Int(Double(photo.descriptor.height) * scale)), method: .area))
    }

    /// A file's name as a caption.
    static func name(_ file: String) -> String {
        (FileSystemPath.displayed(file) as NSString).lastPathComponent
    }

    /// The most cells a row holds: a sheet stays a picture one can open (a group of 2,000 copies in one row
    /// was 336,008 pixels wide).
    static let maximumColumns = 12

    /// Cells left to right, `columns` (at most ``maximumColumns``) to a row, black text on white.
    static func make(_ cells: [Cell], columns: Int = 6, gap: Int = 8) throws -> PixelBuffer {
        let columns = min(columns, maximumColumns)
        let side = cells.map { max($0.face.descriptor.width, $0.face.descriptor.height) }.max() ?? 0
        let lines = cells.map(\.caption.count).max() ?? 0
        let cellWidth = side + gap, cellHeight = side + 4 + lines * BitmapFont.lineHeight + gap
        let across = max(1, min(columns, cells.count)), down = (cells.count + across - 1) / across
        let width = across * cellWidth + gap, height = down * cellHeight + gap
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (index, cell) in cells.enumerated() {
            let left = gap + index % across * cellWidth, top = gap + index / across * cellHeight
            let d = cell.face.descriptor
            for y in 0..<d.height {
                pixels.replaceSubrange(
                    (top + y) * width + left..<(top + y) * width + left + d.width,
                    with: cell.face.bytes[y * d.width..<(y + 1) * d.width])
            }
            for (line, text) in cell.caption.enumerated() {
                BitmapFont.draw(
                    text, into: &pixels, width: width, at: left, top + side + 4 + line * BitmapFont.lineHeight,
                    maximumCharacters: side / BitmapFont.advance)
            }
        }
        return try PixelBuffer(width: width, height: height, values: pixels)
    }
}
