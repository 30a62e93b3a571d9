import ImageKernelsCL

/// Integral images of `uint8` planes, as OpenCV lays them out: (W + 1) × (H + 1) `uint32` per plane, the
/// first row and column 0. Sums wrap modulo 2³² as OpenCV's do: the difference of four entries is exact
/// for any window whose true sum fits in 32 bits. Cascade detectors read window sums from them in
/// constant time.
public struct IntegralImage: Filter {
    public enum Kind: String, Sendable, CaseIterable {
        /// Entry (x, y): the sum of the pixels above and left of it.
        case sums
        /// The same over the pixels' squares (for a window's variance).
        case squaredSums
        /// Entry (X, Y): the sum over the 45° triangle above pixel (X − 1, Y − 1), all (x, y) with y < Y and
        /// |x − X + 1| ≤ Y − y − 1 (OpenCV's tilted integral, for rotated Haar features).
        case tiltedSums
    }

    public let kind: Kind
    public var name: String { "integral (\(kind.rawValue))" }

    public init(_ kind: Kind = .sums) {
        self.kind = kind
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, of: .uint8)
        return input.with(width: input.width + 1, height: input.height + 1).with(elementType: .uint32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        let planes = input.planeCount, width = Int32(input.width), height = Int32(input.height)
        let rowSums = kind == .tiltedSums ? try encoder.temporaryImage(encoder.output.descriptor) : encoder.output
        let rowKernel = kind == .squaredSums ? Self.squaredRows : Self.rows
        // The GPU shape takes a work-group a row.
        let schedule = encoder.schedule(for: rowKernel)
        try encoder.launch(
            rowKernel, RowArguments(src: .init(encoder.input), dst: .init(rowSums), width: width, height: height),
            over: [(input.height + 1) * (schedule.cooperative ? schedule.workGroup[0] : 1), planes], schedule: schedule)
        guard kind == .tiltedSums else {
            try encoder.launch(
                Self.columns, ColumnArguments(dst: .init(encoder.output), width: width, height: height),
                over: [input.width + 1, planes])
            return
        }
        for kernel in [Self.antidiagonals, Self.diagonals] {
            try encoder.launch(
                kernel, TiltedArguments(rows: .init(rowSums), dst: .init(encoder.output), width: width, height: height),
                over: [input.width + input.height + 1, planes])
        }
    }

    struct RowArguments: KernelArguments {
        var src: KernelBuffer<UInt8>
        var dst: KernelMutableBuffer<UInt32>
        var width: Int32
        var height: Int32
    }

    struct ColumnArguments: KernelArguments {
        var dst: KernelMutableBuffer<UInt32>
        var width: Int32
        var height: Int32
    }

    struct TiltedArguments: KernelArguments {
        var rows: KernelBuffer<UInt32>
        var dst: KernelMutableBuffer<UInt32>
        var width: Int32
        var height: Int32
    }

    static let source = KernelSource(name: "IntegralImage", bytes: ImageKernelsCL.integralImage)
    static let rows = rowSums(squared: false), squaredRows = rowSums(squared: true)

    /// A work-item a row on the CPU device and OpenCL CPUs; on GPUs a cooperative work-group of 256 a row
    /// (eight warps: a photo's rows of 300–2,000 pixels in 2–8 stretches).
    static let rowSchedules = KernelSchedules(
        cpu: KernelSchedules.perLine.cpu, openCLCPU: KernelSchedules.perLine.openCLCPU,
        openCLGPU: KernelSchedule(workGroup: [256, 1], cooperative: true))

    private static func rowSums(squared: Bool) -> Kernel<RowArguments> {
        Kernel("integral_rows", in: source, options: squared ? "-DSQUARED" : "", schedules: rowSchedules) {
            arguments, grid in
            let width = Int(arguments.width), height = Int(arguments.height)
            CPUParallel.forEachRange(grid[1] * (height + 1)) { rows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                for index in rows {
                    let plane = index / (height + 1), y = index % (height + 1)
                    let out = dst + index * (width + 1)
                    out[0] = 0
                    guard y > 0 else {
                        out.update(repeating: 0, count: width + 1)
                        continue
                    }
                    let row = src + (plane * height + y - 1) * width
                    var sum: UInt32 = 0
                    for x in 0..<width {
                        let v = UInt32(row[x])
                        sum &+= squared ? v &* v : v
                        out[x + 1] = sum
                    }
                }
            }
        }
    }

    static let columns = Kernel<ColumnArguments>("integral_columns", in: source, schedules: .perLine) {
        arguments, grid in
        let width = Int(arguments.width), height = Int(arguments.height), stride = width + 1
        CPUParallel.forEachRange(grid[1]) { planes in
            let dst = arguments.dst.elements
            for plane in planes {
                let base = dst + plane * (height + 1) * stride
                for y in 1..<height + 1 {
                    let above = base + (y - 1) * stride, row = base + y * stride
                    for x in 0...width { row[x] &+= above[x] }
                }
            }
        }
    }

    static let antidiagonals = tiltedDiagonals(anti: true), diagonals = tiltedDiagonals(anti: false)

    /// The tilted pass: one diagonal per work-item (see IntegralImage.cl for the sums); the twin one per task.
    private static func tiltedDiagonals(anti: Bool) -> Kernel<TiltedArguments> {
        Kernel("integral_tilted", in: source, options: anti ? "-DANTI" : "", schedules: .perLine) { arguments, grid in
            let width = Int(arguments.width), height = Int(arguments.height), stride = width + 1
            let diagonals = width + height + 1
            CPUParallel.forEachRange(grid[1] * diagonals) { indices in
                let rows = arguments.rows.elements, dst = arguments.dst.elements
                for index in indices {
                    let plane = index / diagonals, d = index % diagonals
                    let base = plane * (height + 1) * stride
                    var sum: UInt32 = 0
                    for y in 0...height {
                        let x = anti ? d - y : d - height + y, k = anti ? d - 1 - y : x
                        if x >= 0 && x <= width {
                            if anti { dst[base + y * stride + x] = sum } else { dst[base + y * stride + x] &-= sum }
                        }
                        if y < height { sum &+= rows[base + (y + 1) * stride + min(max(k, 0), width)] }
                    }
                }
            }
        }
    }
}

extension Image {
    /// The integral image of every `uint8` plane: upright sums, sums of squares, or tilted sums.
    public func integral(_ kind: IntegralImage.Kind = .sums) -> Image {
        applying(IntegralImage(kind))
    }
}
