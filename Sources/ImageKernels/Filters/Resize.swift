import ImageKernelsCL

/// Resizes every plane, bilinearly (OpenCV's half-pixel centres) or by area averaging; optionally makes only a
/// region of the resized planes, as a crop of the whole would keep it.
public struct Resize: Filter {
    public enum Method: Sendable {
        /// Bilinear interpolation between the four nearest source pixels.
        case bilinear
        /// The average of the source area under each output pixel, partial pixels weighted.
        case area
    }

    public let width: Int
    public let height: Int
    public let method: Method
    /// The part of the `width` × `height` planes that is made: all of them unless given.
    public let region: PixelRect?
    public var name: String { "resize \(method) → \(width)×\(height)" + (region.map { " \($0)" } ?? "") }

    public init(width: Int, height: Int, method: Method = .bilinear, region: PixelRect? = nil) {
        self.width = width
        self.height = height
        self.method = method
        self.region = region
    }

    /// What is made of the resized planes.
    private var made: PixelRect { region ?? PixelRect(x: 0, y: 0, width: width, height: height) }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, oneOf: [.uint8, .float32])
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw .invalidInput(filter: name, reason: "size must be in 1...32768")
        }
        let made = made
        guard made.width > 0, made.height > 0, made.x >= 0, made.y >= 0, made.x + made.width <= width,
            made.y + made.height <= height
        else {
            throw .invalidInput(filter: name, reason: "the region \(made) is not inside \(width)×\(height)")
        }
        return input.with(width: made.width, height: made.height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor, made = made
        let scaleX = Float(input.width) / Float(width), scaleY = Float(input.height) / Float(height)
        let size = [made.width, made.height, input.planeCount]
        let (inWidth, inHeight, outWidth, outHeight) = (
            Int32(input.width), Int32(input.height), Int32(made.width), Int32(made.height)
        )
        switch method {
        case .bilinear:
            let columns = Self.samples(count: made.width, scale: scaleX, limit: input.width, from: made.x)
            let rows = Self.samples(count: made.height, scale: scaleY, limit: input.height, from: made.y)
            func launch<T: PixelElement>(_ kernel: Kernel<BilinearArguments<T>>) throws(RenderError) {
                try encoder.launch(
                    kernel,
                    BilinearArguments(
                        src: .init(encoder.input), dst: .init(encoder.output), inWidth: inWidth,
                        inHeight: inHeight, outWidth: outWidth, outHeight: outHeight,
                        columns: columns.indices, columnWeights: columns.weights,
                        rows: rows.indices, rowWeights: rows.weights),
                    over: size)
            }
            try byPixelType(
                input.elementType, uint8: { () throws(RenderError) in try launch(Self.bilinearUInt8) },
                float32: { () throws(RenderError) in try launch(Self.bilinearFloat) })
        case .area:
            func launch<T: PixelElement>(_ kernel: Kernel<AreaArguments<T>>) throws(RenderError) {
                try encoder.launch(
                    kernel,
                    AreaArguments(
                        src: .init(encoder.input), dst: .init(encoder.output), inWidth: inWidth,
                        inHeight: inHeight, outWidth: outWidth, outHeight: outHeight,
                        scaleX: scaleX, scaleY: scaleY, inverseArea: 1 / (scaleX * scaleY), offsetX: Int32(made.x),
                        offsetY: Int32(made.y)),
                    over: size)
            }
            try byPixelType(
                input.elementType, uint8: { () throws(RenderError) in try launch(Self.areaUInt8) },
                float32: { () throws(RenderError) in try launch(Self.areaFloat) })
        }
    }

    struct BilinearArguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<Pixel>
        var inWidth: Int32
        var inHeight: Int32
        var outWidth: Int32
        var outHeight: Int32
        var columns: [Int32]
        var columnWeights: [Float]
        var rows: [Int32]
        var rowWeights: [Float]
    }

    struct AreaArguments<Pixel: PixelElement>: KernelArguments {
        var src: KernelBuffer<Pixel>
        var dst: KernelMutableBuffer<Pixel>
        var inWidth: Int32
        var inHeight: Int32
        var outWidth: Int32
        var outHeight: Int32
        var scaleX: Float
        var scaleY: Float
        var inverseArea: Float
        /// Where the output lies in the resized planes.
        var offsetX: Int32
        var offsetY: Int32
    }

    static let source = KernelSource(name: "Resize", bytes: ImageKernelsCL.resize)
    static let bilinearUInt8 = bilinear(UInt8.self), bilinearFloat = bilinear(Float.self)
    static let areaUInt8 = area(UInt8.self), areaFloat = area(Float.self)

    /// For each output column (or row) from `start` on: the two source columns it blends, clamped to the
    /// plane, and the weight of the second, from the source point (i + 0.5) · scale − 0.5 (OpenCV's half-pixel
    /// centres). Padded to a multiple of 8 entries, for the kernel's vector loads.
    static func samples(count: Int, scale: Float, limit: Int, from start: Int = 0) -> (
        indices: [Int32], weights: [Float]
    ) {
        var indices: [Int32] = [], weights: [Float] = []
        indices.reserveCapacity(2 * count + 16)
        weights.reserveCapacity(count + 8)
        for i in start..<start + (count + 7) / 8 * 8 {
            let source = (Float(i) + 0.5) * scale - 0.5, floor = source.rounded(.down), first = Int(floor)
            indices += [Int32(min(max(first, 0), limit - 1)), Int32(min(max(first + 1, 0), limit - 1))]
            weights.append(source - floor)
        }
        return (indices, weights)
    }

    /// Eight output pixels per work-item along a row (the source's vector width: its tables are padded to
    /// multiples of 8); the twin reads the same column and row tables and does the kernel's arithmetic.
    private static func bilinear<T: PixelElement>(_ type: T.Type) -> Kernel<BilinearArguments<T>> {
        Kernel(
            "resize_bilinear", in: source, options: T.pixelOptions,
            schedules: .uniform([8, 8, 1], vectorWidth: 8)
        ) { arguments, grid in
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight), outWidth = Int(arguments.outWidth)
            let outHeight = Int(arguments.outHeight)
            CPUParallel.forEachRange(grid[2] * outHeight) { outputRows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                let rows = arguments.rows, rowWeights = arguments.rowWeights
                arguments.columns.withUnsafeBufferPointer { columns in
                    arguments.columnWeights.withUnsafeBufferPointer { columnWeights in
                        guard let columns = columns.baseAddress, let columnWeights = columnWeights.baseAddress else {
                            return
                        }
                        for row in outputRows {
                            let plane = src + (row / outHeight) * inHeight * inWidth, y = row % outHeight
                            blendRow(
                                top: plane + Int(rows[2 * y]) * inWidth, bottom: plane + Int(rows[2 * y + 1]) * inWidth,
                                weight: rowWeights[y], columns: columns, columnWeights: columnWeights,
                                into: dst + row * outWidth, count: outWidth)
                        }
                    }
                }
            }
        }
    }

    /// One output row blended from two source rows (`weight` the second's) through a column table of
    /// ``samples(count:scale:limit:from:)`` (its pairs of indices and its weights): the bilinear kernels'
    /// arithmetic, for their twins.
    @inline(__always)
    static func blendRow<T: PixelElement>(
        top: UnsafePointer<T>, bottom: UnsafePointer<T>, weight ay: Float,
        columns: UnsafePointer<Int32>, columnWeights: UnsafePointer<Float>,
        into out: UnsafeMutablePointer<T>, count: Int
    ) {
        for x in 0..<count {
            let left = Int(columns[2 * x]), right = Int(columns[2 * x + 1]), ax = columnWeights[x]
            let upper = (1 - ax) * top[left].floatValue + ax * top[right].floatValue
            let lower = (1 - ax) * bottom[left].floatValue + ax * bottom[right].floatValue
            out[x] = T(rounding: (1 - ay) * upper + ay * lower)
        }
    }

    /// The twin does the kernel's arithmetic in its order: each output pixel the sum over its source rows of
    /// the row's weight times the row's partial sum (its source columns' weights times their pixels). A row's
    /// partial sums depend on the source row alone, so each is worked out once for every output row that reads
    /// it, eight output pixels at a time, then the rows' weighted sums likewise. Every output pixel reads as
    /// many source pixels a side (``AreaCover``), those it does not cover with a weight of zero, which adds
    /// nothing to a sum of finite values.
    private static func area<T: PixelElement>(_ type: T.Type) -> Kernel<AreaArguments<T>> {
        Kernel("resize_area", in: source, options: T.pixelOptions, schedules: .perPixel) { arguments, grid in
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight), outWidth = Int(arguments.outWidth)
            let outHeight = Int(arguments.outHeight), inverseArea = arguments.inverseArea
            let columns = AreaCover(
                count: outWidth, scale: arguments.scaleX, limit: inWidth, from: Int(arguments.offsetX))
            let lines = AreaCover(
                count: outHeight, scale: arguments.scaleY, limit: inHeight, from: Int(arguments.offsetY))
            CPUParallel.forEachRange(grid[2] * outHeight) { outputRows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                var row = outputRows.lowerBound
                while row < outputRows.upperBound {
                    // The output rows of one plane in this range, and the source rows they read.
                    let plane = row / outHeight, last = min(outputRows.upperBound, (plane + 1) * outHeight) - 1
                    let firstLine = lines.first[row % outHeight], endLine = lines.first[last % outHeight] + lines.taps
                    let partials = UnsafeMutablePointer<Float>.allocate(capacity: (endLine - firstLine) * outWidth)
                    defer { partials.deallocate() }
                    for line in firstLine..<endLine {
                        let pixels = src + (plane * inHeight + line) * inWidth
                        let sums = partials + (line - firstLine) * outWidth
                        // Eight output pixels at a time, each a sum of its own (a lone sum waits on itself
                        // at every tap), their pixels gathered tap by tap.
                        var x = 0
                        while x + 8 <= outWidth {
                            var partial = SIMD8<Float>(), gathered = SIMD8<Float>()
                            for i in 0..<columns.taps {
                                for lane in 0..<8 { gathered[lane] = pixels[columns.first[x + lane] + i].floatValue }
                                partial +=
                                    UnsafeRawPointer(columns.weights + i * outWidth + x).loadUnaligned(
                                        as: SIMD8<Float>.self) * gathered
                            }
                            UnsafeMutableRawPointer(sums + x).storeBytes(of: partial, as: SIMD8<Float>.self)
                            x += 8
                        }
                        for x in x..<outWidth {
                            let first = pixels + columns.first[x]
                            var partial: Float = 0
                            for i in 0..<columns.taps {
                                partial += columns.weights[i * outWidth + x] * first[i].floatValue
                            }
                            sums[x] = partial
                        }
                    }
                    for row in row...last {
                        let y = row % outHeight, out = dst + row * outWidth, weights = lines.weights + y
                        let sums = partials + (lines.first[y] - firstLine) * outWidth
                        var x = 0
                        while x + 8 <= outWidth {
                            var sum = SIMD8<Float>()
                            for i in 0..<lines.taps {
                                sum +=
                                    weights[i * outHeight]
                                    * UnsafeRawPointer(sums + i * outWidth + x).loadUnaligned(as: SIMD8<Float>.self)
                            }
                            sum *= inverseArea
                            for i in 0..<8 { out[x + i] = T(rounding: sum[i]) }
                            x += 8
                        }
                        for x in x..<outWidth {
                            var sum: Float = 0
                            for i in 0..<lines.taps { sum += weights[i * outHeight] * sums[i * outWidth + x] }
                            out[x] = T(rounding: sum * inverseArea)
                        }
                    }
                    row = last + 1
                }
            }
        }
    }
}

/// The source pixels x₀..<x₁ each output pixel of an area resize covers along one axis (the outputs from `start`
/// on), and how much of each, as tables for the twin: output `i` reads the ``taps`` source pixels from
/// `first[i]` on (as many for every output, so that loops over them take no branch that depends on the pixel),
/// with `weights[j · count + i]` for its tap `j` (tap by tap, so that neighbouring outputs' weights for one tap
/// are read as a vector), zero for those it does not cover.
private final class AreaCover: @unchecked Sendable {
    let taps: Int
    let first: UnsafeMutablePointer<Int>
    let weights: UnsafeMutablePointer<Float>

    init(count: Int, scale: Float, limit: Int, from start: Int) {
        let spans = (start..<start + count).map { i in
            let x0 = Float(i) * scale, x1 = min(Float(i + 1) * scale, Float(limit))
            return (x0, x1, Int(x0.rounded(.down))..<min(Int(x1.rounded(.up)), limit))
        }
        taps = min(limit, spans.map(\.2.count).max() ?? 1)
        first = .allocate(capacity: count)
        weights = .allocate(capacity: count * taps)
        weights.initialize(repeating: 0, count: count * taps)
        for (i, (x0, x1, covered)) in spans.enumerated() {
            first[i] = min(covered.lowerBound, limit - taps)
            for x in covered { weights[(x - first[i]) * count + i] = min(Float(x + 1), x1) - max(Float(x), x0) }
        }
    }

    deinit {
        first.deallocate()
        weights.deallocate()
    }
}

extension Image {
    /// Every plane resized to `width`×`height`.
    public func resized(width: Int, height: Int, method: Resize.Method = .bilinear) -> Image {
        applying(Resize(width: width, height: height, method: method))
    }

    /// `region` of every plane resized to `width`×`height`: what `resized(width:height:method:)` then
    /// `cropped(to: region)` make, without making the rest.
    public func resized(width: Int, height: Int, method: Resize.Method = .bilinear, keeping region: PixelRect)
        -> Image
    {
        applying(Resize(width: width, height: height, method: method, region: region))
    }
}
