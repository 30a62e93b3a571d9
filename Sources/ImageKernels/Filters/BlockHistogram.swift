import ImageKernelsCL

/// Histograms of codes over a grid of blocks, each normalised to sum 1: the spatial LBP descriptor.
///
/// Block (bx, by) of a W×H plane covers columns `bx·W/gridColumns ..< (bx+1)·W/gridColumns` and rows
/// likewise (integer division), so every pixel belongs to exactly one block and block sizes differ by
/// at most one pixel, on every device. Codes ≥ `bins` are not counted. The output has, per input plane,
/// `gridRows × gridColumns` rows (blocks in row-major order) of `bins` floats.
public struct BlockHistogram: Filter {
    public let gridColumns: Int
    public let gridRows: Int
    public let bins: Int
    public var name: String { "histograms \(gridColumns)×\(gridRows)×\(bins)" }

    public init(gridColumns: Int = 8, gridRows: Int = 8, bins: Int = 256) {
        self.gridColumns = gridColumns
        self.gridRows = gridRows
        self.bins = bins
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, of: .uint8)
        guard (1...256).contains(bins), gridColumns > 0, gridRows > 0,
            gridColumns <= input.width, gridRows <= input.height
        else {
            throw .invalidInput(
                filter: name,
                reason: "needs 1...256 bins and a grid no larger than the \(input.width)×\(input.height) image")
        }
        return input.with(width: bins, height: gridRows * gridColumns).with(elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        // The GPU shape takes a work-group a block.
        let schedule = encoder.schedule(for: Self.kernel)
        try encoder.launch(
            Self.kernel,
            Arguments(
                codes: .init(encoder.input), histograms: .init(encoder.output),
                width: Int32(input.width), height: Int32(input.height),
                gridColumns: Int32(gridColumns), gridRows: Int32(gridRows), bins: Int32(bins)),
            over: [gridColumns * (schedule.cooperative ? schedule.workGroup[0] : 1), gridRows, input.planeCount],
            schedule: schedule)
    }

    struct Arguments: KernelArguments {
        var codes: KernelBuffer<UInt8>
        var histograms: KernelMutableBuffer<Float>
        var width: Int32
        var height: Int32
        var gridColumns: Int32
        var gridRows: Int32
        var bins: Int32
    }

    /// A work-item a block on the CPU device and OpenCL CPUs; on GPUs a cooperative work-group of 128 a
    /// block (a 16 × 16 block of a 128-pixel face is two pixels a work-item).
    static let schedules = KernelSchedules(
        cpu: KernelSchedule(workGroup: [8, 8, 1]), openCLCPU: KernelSchedule(workGroup: [8, 8, 1]),
        openCLGPU: KernelSchedule(workGroup: [128, 1, 1], cooperative: true))

    static let kernel = Kernel<Arguments>(
        "block_histogram", in: KernelSource(name: "BlockHistogram", bytes: ImageKernelsCL.blockHistogram),
        schedules: schedules
    ) { arguments, grid in
        let width = Int(arguments.width), height = Int(arguments.height), gridColumns = Int(arguments.gridColumns)
        let gridRows = Int(arguments.gridRows), bins = Int(arguments.bins)
        CPUParallel.forEachRange(grid[2] * gridRows) { blockRows in
            let codes = arguments.codes.elements, histograms = arguments.histograms.elements
            for blockRow in blockRows {
                let plane = blockRow / gridRows,
                    rows = BlockHistogram.span(blockRow % gridRows, of: height, parts: gridRows)
                for bx in 0..<gridColumns {
                    let columns = BlockHistogram.span(bx, of: width, parts: gridColumns)
                    let h = histograms + (blockRow * gridColumns + bx) * bins
                    h.update(repeating: 0, count: bins)
                    for y in rows {
                        let line = codes + (plane * height + y) * width
                        for x in columns where Int(line[x]) < bins { h[Int(line[x])] += 1 }
                    }
                    let count = columns.count * rows.count
                    guard count > 0 else { continue }
                    let scale = 1 / Float(count)
                    for b in 0..<bins { h[b] *= scale }
                }
            }
        }
    }

    /// The columns (or rows) of block `index` of `parts` across `extent` pixels.
    static func span(_ index: Int, of extent: Int, parts: Int) -> Range<Int> {
        index * extent / parts..<(index + 1) * extent / parts
    }

    /// Pixels per block of a `width`×`height` plane, blocks in row-major order: each block's histogram
    /// is its code counts divided by this.
    public func pixelCounts(width: Int, height: Int) -> [Int] {
        (0..<gridRows).flatMap { by in
            (0..<gridColumns).map { bx in
                Self.span(bx, of: width, parts: gridColumns).count * Self.span(by, of: height, parts: gridRows).count
            }
        }
    }
}

extension Image {
    /// Normalised code histograms over a `gridColumns`×`gridRows` grid of blocks.
    public func blockHistograms(gridColumns: Int = 8, gridRows: Int = 8, bins: Int = 256) -> Image {
        applying(BlockHistogram(gridColumns: gridColumns, gridRows: gridRows, bins: bins))
    }
}
