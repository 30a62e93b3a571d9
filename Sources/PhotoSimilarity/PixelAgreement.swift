import Foundation
import ImageKernels

/// Whether two photos hold the same pixels, one perhaps a part of the other: the normalised cross-correlation
/// of their luma where one, resampled, lies best over the other, as a whole or as a region down to half its
/// sides (of the first's shape; placed on a grid, then refined), and of their colour at that placement. A
/// copy agrees with its original (resized, re-encoded, brightened, cropped to a tenth or to half the frame:
/// luma 0.96 and more), while two photos of look-alike objects do not (two motorbikes in one pose on white, two
/// cameras, two cars: 0.96 and less), however close their prints or hashes; a photo recoloured (one catalogue
/// shot of a motorbike in blue and in purple) agrees in luma but not in colour. A copy turned by a few degrees
/// agrees once turned back (``turnedAgreement(_:_:)``), where two pages of text, alike in every print and at the
/// same line spacing, do not. The print says which photos to compare; this says which of them are copies.
public enum PixelAgreement {
    /// A photo as the agreement reads it: its luma and colour (Y, Cb, Cr: BT.601, a byte each) with a long
    /// side of ``side`` pixels or fewer, and how many pixels the photo itself has (the one with fewer is
    /// searched for inside the other: a crop has fewer than its original). 3 bytes a pixel: a grouping holds
    /// one for every photo it compares.
    public struct Plane: Sendable {
        public let width: Int
        public let height: Int
        /// Y, then Cb and Cr offset by 128, each `width` × `height` values row by row.
        let samples: [UInt8]
        let pixels: Int

        /// Planes of `width` × `height` values each, row by row: luma 0…255, colour −128…127.
        public init(width: Int, height: Int, luma: [Float], blue: [Float], red: [Float], pixels: Int) {
            precondition(
                width > 0 && height > 0 && [luma, blue, red].allSatisfy { $0.count == width * height },
                "planes of their size")
            self.width = width
            self.height = height
            samples = zip([luma, blue, red], [0, 128, 128] as [Float]).flatMap { values, offset in
                values.map { UInt8(min(255, max(0, ($0 + offset).rounded()))) }
            }
            self.pixels = pixels
        }

        /// Whether this plane comes first where two of equal pixel counts are compared, so that the order
        /// they are given in does not matter: by size, then by the sum of their luma.
        func precedes(_ other: Plane) -> Bool {
            (width, height, lumaSum) < (other.width, other.height, other.lumaSum)
        }

        private var lumaSum: Int { samples.prefix(width * height).reduce(0) { $0 + Int($1) } }
    }

    /// A plane's channels as summed-area tables, made for a comparison, so that any region is averaged over
    /// its area.
    struct Tables {
        let width: Int
        let height: Int
        let luma: [Float]
        let blue: [Float]
        let red: [Float]

        init(_ plane: Plane) {
            (width, height) = (plane.width, plane.height)
            let count = width * height
            luma = Self.summed(plane.samples[0..<count], offset: 0, width: width, height: height)
            blue = Self.summed(plane.samples[count..<2 * count], offset: 128, width: width, height: height)
            red = Self.summed(plane.samples[2 * count..<3 * count], offset: 128, width: width, height: height)
        }

        /// The summed-area table of `values` less `offset`: (width + 1) × (height + 1) sums of the values above
        /// and left.
        static func summed(_ values: ArraySlice<UInt8>, offset: Float, width: Int, height: Int) -> [Float] {
            var table = [Float](repeating: 0, count: (width + 1) * (height + 1))
            let start = values.startIndex
            for y in 0..<height {
                var row: Float = 0
                for x in 0..<width {
                    row += Float(values[start + y * width + x]) - offset
                    table[(y + 1) * (width + 1) + x + 1] = table[y * (width + 1) + x + 1] + row
                }
            }
            return table
        }
    }

    /// How two photos agree: their luma's correlation at the best placement (−1…1; 0 where either is flat),
    /// and their colour's there (nil where either photo is nearly grey, so that colour says nothing).
    public struct Agreement: Sendable, Equatable {
        public let luma: Float
        public let colour: Float?
    }

    /// The long side of the planes compared.
    public static let side = 96
    /// The long side of the grids a placement is compared on: coarse while searching, fine when refining.
    static let coarseSide = 16, fineSide = 40
    /// The region sizes tried, as shares of the larger photo's sides, and the placements on each axis.
    static let scales: [Float] = [1, 0.9, 0.8, 0.7, 0.6, 0.5]
    static let placements = 8
    /// The spread of Cb and Cr (their root mean square about their means) below which a photo is nearly grey.
    static let greySpread: Float = 1.5
    /// The luma correlation from which a placement is taken without searching further (copies of the whole).
    static let wholeEnough: Float = 0.98
    /// The variance of luma (grey levels squared) below which a region is flat: its correlation says nothing
    /// (and the summed-area tables' rounding would make one up).
    static let flatVariance: Float = 0.25
    /// The turns ``turnedAgreement(_:_:)`` tries, in degrees either way, and the share of each side it leaves
    /// out at every edge (where a turn brings in what lay outside the frame).
    static let turns = 1...7
    static let turnMargin: Float = 0.1
    /// The least side, in pixels of the planes, of a photo turned back: a turn of a strip says nothing.
    static let turnedSide = 8

    /// The planes of a uint8 photo (grey, RGB or RGBA; decoded at any reduction), area-resized on `context` to
    /// a long side of ``side``; `pixels` is the photo's own count (as stored: width × height).
    public static func plane(of photo: PixelBuffer, pixels: Int, context: RenderContext) throws(RenderError) -> Plane {
        let width = photo.descriptor.width, height = photo.descriptor.height
        let scale = min(1, Double(side) / Double(max(width, height)))
        let colour = photo.descriptor.channels == 1 ? photo : photo.rgb()
        let resized =
            scale < 1
            ? try context.render(
                Image(colour).resized(
                    width: max(1, Int((Double(width) * scale).rounded())),
                    height: max(1, Int((Double(height) * scale).rounded())), method: .area))
            : colour
        let count = resized.descriptor.width * resized.descriptor.height, bytes = resized.bytes
        var luma = [Float](repeating: 0, count: count), blue = luma, red = luma
        if resized.descriptor.channels == 1 {
            for i in 0..<count { luma[i] = Float(bytes[i]) }
        } else {
            for i in 0..<count {
                let (r, g, b) = (Float(bytes[i]), Float(bytes[count + i]), Float(bytes[2 * count + i]))
                luma[i] = 0.299 * r + 0.587 * g + 0.114 * b
                blue[i] = -0.168736 * r - 0.331264 * g + 0.5 * b
                red[i] = 0.5 * r - 0.418688 * g - 0.081312 * b
            }
        }
        return Plane(
            width: resized.descriptor.width, height: resized.descriptor.height, luma: luma, blue: blue, red: red,
            pixels: pixels)
    }

    /// How `a` and `b` agree, in either order: the one with fewer pixels placed in the other (both ways at
    /// equal counts), the better placement's.
    public static func agreement(_ a: Plane, _ b: Plane) -> Agreement {
        if a.pixels != b.pixels {
            return a.pixels < b.pixels
                ? agreement(of: Tables(a), within: Tables(b)) : agreement(of: Tables(b), within: Tables(a))
        }
        let (first, second) = a.precedes(b) ? (Tables(a), Tables(b)) : (Tables(b), Tables(a))
        let one = agreement(of: first, within: second)
        guard one.luma < wholeEnough else { return one }
        let other = agreement(of: second, within: first)
        return other.luma > one.luma ? other : one
    }

    /// How `a` and `b` agree where one is the other, perhaps resized, turned about its centre by up to
    /// `turns` degrees: their central parts (less `turnMargin` at each edge) on the fine grid, the other's
    /// cells read turned, at the best turn; nil where their shapes differ or either is too small to turn. The
    /// same, in either order.
    public static func turnedAgreement(_ a: Plane, _ b: Plane) -> Agreement? {
        let (still, turning) = a.precedes(b) ? (a, b) : (b, a)
        let aspect = Float(still.width) / Float(still.height)
        guard min(still.width, still.height, turning.width, turning.height) >= turnedSide,
            abs(aspect - Float(turning.width) / Float(turning.height)) <= 0.03 * aspect
        else { return nil }
        func inner(_ plane: Tables) -> (x: Float, y: Float, width: Float, height: Float) {
            let (width, height) = (Float(plane.width), Float(plane.height))
            return (
                turnMargin * width, turnMargin * height, (1 - 2 * turnMargin) * width, (1 - 2 * turnMargin) * height
            )
        }
        let tables = Tables(still), other = Tables(turning), part = inner(tables), region = inner(other)
        let grid = Grid(aspect: aspect, longSide: fineSide, of: tables, region: part)
        let best = turns.flatMap { [Float($0), -Float($0)] }.map { degrees in
            (
                luma: grid.luma(
                    with: other, x: region.x, y: region.y, width: region.width, height: region.height,
                    turnedBy: degrees),
                degrees: degrees
            )
        }.max { $0.luma < $1.luma }
        guard let best else { return nil }
        return Agreement(
            luma: best.luma,
            colour: grid.colour(
                with: other, x: region.x, y: region.y, width: region.width, height: region.height,
                turnedBy: best.degrees))
    }

    /// The best luma correlation of `part`, whole, with a region of `whole` of `part`'s shape, and the colours'
    /// there: the whole first; else every placement of each size of ``scales`` on a grid of ``placements`` a
    /// side at the coarse size, then the best refined around at the fine size (sizes ± 0.06 by 0.02,
    /// positions ± a grid step).
    static func agreement(of part: Tables, within whole: Tables) -> Agreement {
        let aspect = Float(part.width) / Float(part.height)
        let fine = Grid(aspect: aspect, longSide: fineSide, of: part)
        let (fullWidth, fullHeight) = region(of: whole, aspect: aspect, scale: 1)
        let centred = (
            x: (Float(whole.width) - fullWidth) / 2, y: (Float(whole.height) - fullHeight) / 2
        )
        var best = (
            luma: fine.luma(with: whole, x: centred.x, y: centred.y, width: fullWidth, height: fullHeight),
            x: centred.x, y: centred.y, width: fullWidth, height: fullHeight
        )
        if best.luma < wholeEnough {
            let coarse = Grid(aspect: aspect, longSide: coarseSide, of: part)
            var found = (luma: -Float.infinity, scale: Float(1), x: Float(0), y: Float(0))
            for scale in scales {
                let (width, height) = region(of: whole, aspect: aspect, scale: scale)
                for y in spread(0, Float(whole.height) - height) {
                    for x in spread(0, Float(whole.width) - width) {
                        let luma = coarse.luma(with: whole, x: x, y: y, width: width, height: height)
                        if luma > found.luma { found = (luma, scale, x, y) }
                    }
                }
            }
            for step in -3...3 {
                let scale = found.scale + Float(step) * 0.02
                guard scale <= 1.0001, scale >= 0.4 else { continue }
                let (width, height) = region(of: whole, aspect: aspect, scale: scale)
                let (roomX, roomY) = (max(0, Float(whole.width) - width), max(0, Float(whole.height) - height))
                let (stepX, stepY) = (max(0.5, roomX / Float(placements - 1)), max(0.5, roomY / Float(placements - 1)))
                for dy in -2...2 {
                    for dx in -2...2 {
                        let x = min(max(0, found.x + Float(dx) * stepX / 2), roomX)
                        let y = min(max(0, found.y + Float(dy) * stepY / 2), roomY)
                        let luma = fine.luma(with: whole, x: x, y: y, width: width, height: height)
                        if luma > best.luma { best = (luma, x, y, width, height) }
                    }
                }
            }
        }
        return Agreement(
            luma: best.luma,
            colour: fine.colour(with: whole, x: best.x, y: best.y, width: best.width, height: best.height))
    }

    /// The largest region of `whole` with the shape `aspect`, times `scale`.
    static func region(of whole: Tables, aspect: Float, scale: Float) -> (width: Float, height: Float) {
        Float(whole.width) / Float(whole.height) > aspect
            ? (Float(whole.height) * scale * aspect, Float(whole.height) * scale)
            : (Float(whole.width) * scale, Float(whole.width) * scale / aspect)
    }

    /// ``placements`` positions from `low` to `high`, or `low` alone where there is no room.
    static func spread(_ low: Float, _ high: Float) -> [Float] {
        high - low > 0.5
            ? (0..<placements).map { low + (high - low) * Float($0) / Float(placements - 1) } : [low]
    }

    /// A part resampled whole on a grid of its shape, its luma mean-centred and scaled to unit length: what each
    /// placement in the other photo is compared with.
    struct Grid {
        let width: Int
        let height: Int
        let luma: [Float]
        let blue: [Float]
        let red: [Float]

        /// The grid of `part` whole, or of its `region` (x, y, width, height).
        init(
            aspect: Float, longSide: Int, of part: Tables,
            region: (x: Float, y: Float, width: Float, height: Float)? = nil
        ) {
            let (width, height) =
                aspect >= 1
                ? (longSide, max(4, Int((Float(longSide) / aspect).rounded())))
                : (max(4, Int((Float(longSide) * aspect).rounded())), longSide)
            (self.width, self.height) = (width, height)
            let area = region ?? (0, 0, Float(part.width), Float(part.height))
            let sampler = Sampler(
                plane: part, x: area.x, y: area.y, width: area.width, height: area.height, gridWidth: width,
                gridHeight: height)
            luma = Self.normalised(sampler.values(of: part.luma))
            blue = sampler.values(of: part.blue)
            red = sampler.values(of: part.red)
        }

        /// The luma correlation of this grid with the region of `plane` at (x, y) of `width` × `height`, its
        /// cells turned by `degrees` about the plane's centre.
        func luma(
            with plane: Tables, x: Float, y: Float, width regionWidth: Float, height regionHeight: Float,
            turnedBy degrees: Float = 0
        ) -> Float {
            let sampler = Sampler(
                plane: plane, x: x, y: y, width: regionWidth, height: regionHeight, gridWidth: width,
                gridHeight: height, turnedBy: degrees)
            // Σ g (s − mean s) = Σ g s, since the grid's values sum to 0.
            var product: Float = 0, sum: Float = 0, squares: Float = 0
            sampler.forEach(plane.luma) { index, value in
                product += luma[index] * value
                sum += value
                squares += value * value
            }
            let spread = squares - sum * sum / Float(luma.count)
            // Rounding in the tables' sums can carry a correlation a hair past 1.
            return spread > flatVariance * Float(luma.count) ? min(1, max(-1, product / spread.squareRoot())) : 0
        }

        /// The colours' correlation (Cb and Cr together, each less its mean) with the region; nil where either
        /// is nearly grey (spread under ``PixelAgreement/greySpread``); the cells turned by `degrees` as in
        /// ``luma(with:x:y:width:height:turnedBy:)``.
        func colour(
            with plane: Tables, x: Float, y: Float, width regionWidth: Float, height regionHeight: Float,
            turnedBy degrees: Float = 0
        ) -> Float? {
            let sampler = Sampler(
                plane: plane, x: x, y: y, width: regionWidth, height: regionHeight, gridWidth: width,
                gridHeight: height, turnedBy: degrees)
            let mine = [blue, red].map(Self.centred),
                theirs = [plane.blue, plane.red].map { Self.centred(sampler.values(of: $0)) }
            let count = Float(2 * blue.count)
            let squares = (
                mine.flatMap { $0 }.reduce(0) { $0 + $1 * $1 }, theirs.flatMap { $0 }.reduce(0) { $0 + $1 * $1 }
            )
            guard (squares.0 / count).squareRoot() >= greySpread, (squares.1 / count).squareRoot() >= greySpread else {
                return nil
            }
            let product = zip(mine.flatMap { $0 }, theirs.flatMap { $0 }).reduce(0) { $0 + $1.0 * $1.1 }
            return min(1, max(-1, product / (squares.0 * squares.1).squareRoot()))
        }

        static func centred(_ values: [Float]) -> [Float] {
            let mean = values.reduce(0, +) / Float(values.count)
            return values.map { $0 - mean }
        }

        /// Values less their mean, divided by their length; all zero where they are flat.
        static func normalised(_ values: [Float]) -> [Float] {
            let centred = centred(values)
            let squares = centred.reduce(0) { $0 + $1 * $1 }
            guard squares > flatVariance * Float(values.count) else {
                return [Float](repeating: 0, count: values.count)
            }
            return centred.map { $0 / squares.squareRoot() }
        }
    }

    /// A region of a plane cut into a grid's cells, each averaged over its area from a summed-area table (its
    /// edges interpolated between pixels), so that a region of many pixels and one of few compare alike. Turned
    /// by a few degrees, each cell is averaged over a box of its size about where the turn takes its centre.
    struct Sampler {
        let gridWidth: Int
        let gridHeight: Int
        let tableWidth: Int
        /// Each cell edge across, then down: the table column (row) before it, and its weight on the next
        /// (empty where turned).
        let columns: [(Int, Float)]
        let rows: [(Int, Float)]
        /// Where turned, each cell's box, row by row: its left and right edges' columns before them and weights
        /// on the next, then its top and bottom edges' rows.
        let turnedCells: [(left: (Int, Float), right: (Int, Float), top: (Int, Float), bottom: (Int, Float))]?
        /// The area of a cell, in pixels.
        let area: Float

        init(
            plane: Tables, x: Float, y: Float, width: Float, height: Float, gridWidth: Int, gridHeight: Int,
            turnedBy degrees: Float = 0
        ) {
            func edge(_ at: Float, _ size: Int) -> (Int, Float) {
                let at = min(max(0, at), Float(size)), low = min(Int(at), size - 1)
                return (low, at - Float(low))
            }
            func edges(_ start: Float, _ length: Float, _ cells: Int) -> [Float] {
                (0...cells).map { start + Float($0) * length / Float(cells) }
            }
            self.gridWidth = gridWidth
            self.gridHeight = gridHeight
            tableWidth = plane.width + 1
            let (across, down) = (edges(x, width, gridWidth), edges(y, height, gridHeight))
            if degrees == 0 {
                columns = across.map { edge($0, plane.width) }
                rows = down.map { edge($0, plane.height) }
                turnedCells = nil
            } else {
                (columns, rows) = ([], [])
                let (cosine, sine) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
                let centre = (x: Float(plane.width) / 2, y: Float(plane.height) / 2)
                let half = (width: width / Float(gridWidth) / 2, height: height / Float(gridHeight) / 2)
                turnedCells = (0..<gridHeight).flatMap { row in
                    (0..<gridWidth).map { column in
                        let dx = (across[column] + across[column + 1]) / 2 - centre.x
                        let dy = (down[row] + down[row + 1]) / 2 - centre.y
                        let (x, y) = (centre.x + cosine * dx - sine * dy, centre.y + sine * dx + cosine * dy)
                        return (
                            edge(x - half.width, plane.width), edge(x + half.width, plane.width),
                            edge(y - half.height, plane.height), edge(y + half.height, plane.height)
                        )
                    }
                }
            }
            area = max(1e-3, width / Float(gridWidth) * height / Float(gridHeight))
        }

        /// Calls `body` with each cell's index (row by row) and its average of the values `table` sums.
        func forEach(_ table: [Float], _ body: (Int, Float) -> Void) {
            table.withUnsafeBufferPointer { table in
                func at(_ column: (Int, Float), _ row: (Int, Float)) -> Float {
                    let (left, across) = column, upper = row.0 * tableWidth, lower = upper + tableWidth
                    let above = table[upper + left] + (table[upper + left + 1] - table[upper + left]) * across
                    let below = table[lower + left] + (table[lower + left + 1] - table[lower + left]) * across
                    return above + (below - above) * row.1
                }
                if let turnedCells {
                    for (index, cell) in turnedCells.enumerated() {
                        let sum =
                            at(cell.right, cell.bottom) - at(cell.left, cell.bottom) - at(cell.right, cell.top)
                            + at(cell.left, cell.top)
                        body(index, sum / area)
                    }
                    return
                }
                // The table at every corner of the cells, interpolated between its entries.
                var corners = [Float](repeating: 0, count: (gridWidth + 1) * (gridHeight + 1))
                for (row, down) in rows.enumerated() {
                    for (column, across) in columns.enumerated() {
                        corners[row * (gridWidth + 1) + column] = at(across, down)
                    }
                }
                for row in 0..<gridHeight {
                    for column in 0..<gridWidth {
                        let at = row * (gridWidth + 1) + column
                        let sum =
                            corners[at + gridWidth + 2] - corners[at + gridWidth + 1] - corners[at + 1] + corners[at]
                        body(row * gridWidth + column, sum / area)
                    }
                }
            }
        }

        /// The cells' averages of what `table` sums, row by row.
        func values(of table: [Float]) -> [Float] {
            var sampled = [Float](repeating: 0, count: gridWidth * gridHeight)
            forEach(table) { index, value in sampled[index] = value }
            return sampled
        }
    }
}
