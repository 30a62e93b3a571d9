/// How ``SeparableConvolution``'s CPU twin cuts a tensor into bands of output rows: each band's input rows,
/// copied inside a border of zeros (``ZeroBorderedPlanes/Band``), stay in the core's caches while its tiles
/// read them. A band holds whole tiles of sixteen columns where the rows allow (a multiple of four rows where
/// the twin forms four at once), as many rows as keep its copy
/// within ``copyBytes`` and its columns within ``columns``.
struct SeparableBands {
    /// The most bytes a band's copy takes: a quarter of a core's 1 MB second-level cache on the machines the
    /// benchmarks run on, leaving room for the weights, the panels and the outputs.
    static let copyBytes = 256 * 1024
    /// The most columns a band has: more rows a band read each input row fewer times, to a point.
    static let columns = 512

    /// Whether the twin forms four output rows at once: at stride 1, where rows are whole tiles of sixteen
    /// columns (a row's part tile of its own measured slower: EfficientNet's 28 × 28 layers).
    let fourRows: Bool
    /// Output rows a band (the last of an image may have fewer), and bands an image.
    let rows: Int, perImage: Int
    /// The input rows a band's copy holds at most, and the values a row of it.
    let sourceRows: Int, rowLength: Int

    init(
        channels: Int, sourceWidth: Int, kernel: (height: Int, width: Int), stride: (y: Int, x: Int), padding: Int,
        outputs: (height: Int, width: Int)
    ) {
        let rowLength = ZeroBorderedPlanes.rowLength(
            forWindowsOf: sourceWidth, kernelWidth: kernel.width, strideX: stride.x, paddingX: padding,
            outputWidth: outputs.width)
        // Rows a band at least: the fewest whose columns are whole tiles of sixteen; at stride 1 where rows are
        // whole tiles, four, which the twin forms at once.
        var common = 16, other = outputs.width
        while other != 0 { (common, other) = (other, common % other) }
        let whole = 16 / common
        fourRows = stride == (1, 1) && outputs.width % 16 == 0
        let unit = min(fourRows ? 4 : whole, outputs.height)
        func bytes(_ rows: Int) -> Int { channels * ((rows - 1) * stride.y + kernel.height) * rowLength * 4 }
        var rows = unit
        while rows + unit <= outputs.height, (rows + unit) * outputs.width <= Self.columns,
            bytes(rows + unit) <= Self.copyBytes
        {
            rows += unit
        }
        self.rows = rows
        self.rowLength = rowLength
        perImage = (outputs.height + rows - 1) / rows
        sourceRows = (rows - 1) * stride.y + kernel.height
    }
}
