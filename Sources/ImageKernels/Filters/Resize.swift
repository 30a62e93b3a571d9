import ImageKernelsCL

/// Resizes every plane, bilinearly (OpenCV's half-pixel centres) or by area averaging.
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
    public var name: String { "resize \(method) → \(width)×\(height)" }

    public init(width: Int, height: Int, method: Method = .bilinear) {
        self.width = width
        self.height = height
        self.method = method
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, oneOf: [.uint8, .float32])
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw .invalidInput(filter: name, reason: "size must be in 1...32768")
        }
        return input.with(width: width, height: height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        let scaleX = Float(input.width) / Float(width), scaleY = Float(input.height) / Float(height)
        let size = [width, height, input.planeCount]
        let (inWidth, inHeight, outWidth, outHeight) = (
            Int32(input.width), Int32(input.height), Int32(width), Int32(height)
        )
        switch method {
        case .bilinear:
            let columns = Self.samples(count: width, scale: scaleX, limit: input.width)
            let rows = Self.samples(count: height, scale: scaleY, limit: input.height)
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
                        scaleX: scaleX, scaleY: scaleY, inverseArea: 1 / (scaleX * scaleY)),
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
    }

    static let source = KernelSource(name: "Resize", bytes: ImageKernelsCL.resize)
    static let bilinearUInt8 = bilinear(UInt8.self), bilinearFloat = bilinear(Float.self)
    static let areaUInt8 = area(UInt8.self), areaFloat = area(Float.self)

    /// For each output column (or row): the two source columns it blends, clamped to the plane, and the
    /// weight of the second, from the source point (i + 0.5) · scale − 0.5 (OpenCV's half-pixel centres).
    /// Padded to a multiple of 8 entries, for the kernel's vector loads.
    static func samples(count: Int, scale: Float, limit: Int) -> (indices: [Int32], weights: [Float]) {
        var indices: [Int32] = [], weights: [Float] = []
        indices.reserveCapacity(2 * count + 16)
        weights.reserveCapacity(count + 8)
        for i in 0..<(count + 7) / 8 * 8 {
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
    /// ``samples(count:scale:limit:)`` (its pairs of indices and its weights): the bilinear kernels'
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

    /// The twin does the kernel's arithmetic in its order, with each output column's source columns and
    /// their weights worked out once rather than for every row.
    private static func area<T: PixelElement>(_ type: T.Type) -> Kernel<AreaArguments<T>> {
        Kernel("resize_area", in: source, options: T.pixelOptions, schedules: .perPixel) { arguments, grid in
            let inWidth = Int(arguments.inWidth), inHeight = Int(arguments.inHeight), outWidth = Int(arguments.outWidth)
            let outHeight = Int(arguments.outHeight), scaleX = arguments.scaleX, scaleY = arguments.scaleY
            let inverseArea = arguments.inverseArea
            // The source columns x₀..<x₁ each output column covers, and their weights.
            let columns = (0..<outWidth).map { x in
                let x0 = Float(x) * scaleX, x1 = min(Float(x + 1) * scaleX, Float(inWidth))
                let first = Int(x0.rounded(.down)), end = min(Int(x1.rounded(.up)), inWidth)
                return (first, (first..<end).map { ix in min(Float(ix + 1), x1) - max(Float(ix), x0) })
            }
            CPUParallel.forEachRange(grid[2] * outHeight) { rows in
                let src = arguments.src.elements, dst = arguments.dst.elements
                for row in rows {
                    let plane = src + (row / outHeight) * inHeight * inWidth, y = row % outHeight
                    let y0 = Float(y) * scaleY, y1 = min(Float(y + 1) * scaleY, Float(inHeight))
                    let lines = Int(y0.rounded(.down))..<min(Int(y1.rounded(.up)), inHeight)
                    let lineWeights = lines.map { iy in min(Float(iy + 1), y1) - max(Float(iy), y0) }
                    for (x, (first, weights)) in columns.enumerated() {
                        var sum: Float = 0
                        for (line, iy) in lines.enumerated() {
                            let pixels = plane + iy * inWidth + first
                            var partial: Float = 0
                            for (i, wx) in weights.enumerated() { partial += wx * pixels[i].floatValue }
                            sum += lineWeights[line] * partial
                        }
                        dst[row * outWidth + x] = T(rounding: sum * inverseArea)
                    }
                }
            }
        }
    }
}

extension Image {
    /// Every plane resized to `width`×`height`.
    public func resized(width: Int, height: Int, method: Resize.Method = .bilinear) -> Image {
        applying(Resize(width: width, height: height, method: method))
    }
}
