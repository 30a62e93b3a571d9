import ImageKernelsCL

/// Resizes one plane bilinearly to several sizes at once, each into its own region of one output plane
/// (an atlas; pixels outside every region are 0). Each region holds exactly what ``Resize`` gives at its
/// size. A detector's pyramid levels then share one buffer, one integral image and one launch.
public struct AtlasResize: Filter {
    public let width: Int
    public let height: Int
    /// Where each resized copy goes; its size is the copy's size. Regions must not overlap.
    public let regions: [PixelRect]
    public var name: String { "atlas resize → \(width)×\(height), \(regions.count) regions" }

    public init(width: Int, height: Int, regions: [PixelRect]) {
        self.width = width
        self.height = height
        self.regions = regions
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, oneOf: [.uint8, .float32])
        guard input.planeCount == 1 else {
            throw .invalidInput(filter: name, reason: "takes one plane, got \(input.planeCount)")
        }
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw .invalidInput(filter: name, reason: "size must be in 1...32768")
        }
        guard
            regions.allSatisfy({
                $0.width > 0 && $0.height > 0 && $0.x >= 0 && $0.y >= 0 && $0.x + $0.width <= width
                    && $0.y + $0.height <= height
            })
        else {
            throw .invalidInput(filter: name, reason: "every region must be non-empty and inside the atlas")
        }
        return input.with(width: width, height: height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        // Each region's column and row tables, as ``Resize`` makes them, one after another.
        var columnStarts: [Int32] = [], columns: [Int32] = [], columnWeights: [Float] = []
        var rowTableStarts: [Int32] = [], rows: [Int32] = [], rowWeights: [Float] = []
        for region in regions {
            let across = Resize.samples(
                count: region.width, scale: Float(input.width) / Float(region.width), limit: input.width)
            let down = Resize.samples(
                count: region.height, scale: Float(input.height) / Float(region.height), limit: input.height)
            columnStarts.append(Int32(columnWeights.count))
            columns += across.indices
            columnWeights += across.weights
            rowTableStarts.append(Int32(rowWeights.count))
            rows += down.indices
            rowWeights += down.weights
        }
        let crossing = regionsByRow
        func launch<T: PixelElement>(_ kernel: Kernel<Arguments<T>>) throws(RenderError) {
            try encoder.launch(
                kernel,
                Arguments(
                    src: .init(encoder.input), dst: .init(encoder.output), inWidth: Int32(input.width),
                    outWidth: Int32(width), outHeight: Int32(height),
                    regions: regions.flatMap { [Int32($0.x), Int32($0.y), Int32($0.width), Int32($0.height)] },
                    columnStarts: columnStarts, columns: columns, columnWeights: columnWeights,
                    rowTableStarts: rowTableStarts, rows: rows, rowWeights: rowWeights,
                    rowStarts: crossing.starts, rowRegions: crossing.regions),
                over: [width, height])
        }
        try byPixelType(
            input.elementType, uint8: { () throws(RenderError) in try launch(Self.uint8Kernel) },
            float32: { () throws(RenderError) in try launch(Self.floatKernel) })
    }

    /// For each atlas row, the regions that cross it: `regions[starts[y] ..< starts[y + 1]]`.
    private var regionsByRow: (starts: [Int32], regions: [Int32]) {
        var starts: [Int32] = [0], crossing: [Int32] = []
        for y in 0..<height {
            for (index, region) in regions.enumerated() where region.y <= y && y < region.y + region.height {
                crossing.append(Int32(index))
            }
            starts.append(Int32(crossing.count))
        }
        return (starts, crossing)
    }

    struct Arguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<Pixel>
        var inWidth: Int32
        var outWidth: Int32
        var outHeight: Int32
        var regions: [Int32]
        var columnStarts: [Int32]
        var columns: [Int32]
        var columnWeights: [Float]
        var rowTableStarts: [Int32]
        var rows: [Int32]
        var rowWeights: [Float]
        var rowStarts: [Int32]
        var rowRegions: [Int32]
    }

    static let uint8Kernel = kernel(UInt8.self), floatKernel = kernel(Float.self)

    /// Eight pixels of a row a work-item on OpenCL CPUs (in vector lanes), one on GPUs.
    static let schedules = KernelSchedules(
        cpu: KernelSchedule(workGroup: [1, 1]),
        openCLCPU: KernelSchedule(workGroup: [8, 8], vectorWidth: 8),
        openCLGPU: KernelSchedule(workGroup: [32, 4]))

    /// The twin fills the atlas with 0, then blends each region's rows from its tables.
    private static func kernel<T: PixelElement>(_ type: T.Type) -> Kernel<Arguments<T>> {
        Kernel("resize_atlas", in: Resize.source, options: T.pixelOptions, schedules: schedules) { arguments, _ in
            let inWidth = Int(arguments.inWidth), outWidth = Int(arguments.outWidth), regions = arguments.regions
            // Every region's rows as one list of tasks.
            let taskStarts = stride(from: 3, to: regions.count, by: 4).reduce(into: [0]) {
                $0.append(($0.last ?? 0) + Int(regions[$1]))
            }
            arguments.dst.elements.update(repeating: T(rounding: 0), count: outWidth * Int(arguments.outHeight))
            CPUParallel.forEachRange(taskStarts.last ?? 0) { tasks in
                let src = arguments.src.elements, dst = arguments.dst.elements
                arguments.columns.withUnsafeBufferPointer { columns in
                    arguments.columnWeights.withUnsafeBufferPointer { columnWeights in
                        guard let columns = columns.baseAddress, let columnWeights = columnWeights.baseAddress else {
                            return
                        }
                        for task in tasks {
                            let r = taskStarts.lastIndex { $0 <= task } ?? 0, y = task - taskStarts[r]
                            let column = Int(arguments.columnStarts[r]), row = Int(arguments.rowTableStarts[r]) + y
                            let out = dst + (Int(regions[4 * r + 1]) + y) * outWidth + Int(regions[4 * r])
                            Resize.blendRow(
                                top: src + Int(arguments.rows[2 * row]) * inWidth,
                                bottom: src + Int(arguments.rows[2 * row + 1]) * inWidth,
                                weight: arguments.rowWeights[row],
                                columns: columns + 2 * column, columnWeights: columnWeights + column, into: out,
                                count: Int(regions[4 * r + 2]))
                        }
                    }
                }
            }
        }
    }
}

extension Image {
    /// The plane resized to each region's size, into that region of one `width` × `height` plane.
    public func resized(intoAtlas regions: [PixelRect], width: Int, height: Int) -> Image {
        applying(AtlasResize(width: width, height: height, regions: regions))
    }
}
