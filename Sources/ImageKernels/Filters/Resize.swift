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
        let arguments: [KernelArgument] = [.image(encoder.input), .image(encoder.output), .int(input.width),
                                           .int(input.height), .int(width), .int(height)]
        switch method {
        case .bilinear:
            let columns = Self.samples(count: width, scale: scaleX, limit: input.width)
            let rows = Self.samples(count: height, scale: scaleY, limit: input.height)
            let kernel = Kernel(.resizeBilinear, pixelType: input.elementType,
                                uint8: Self.bilinear(UInt8.self), float32: Self.bilinear(Float.self))
            // Eight output pixels per work-item.
            try encoder.launch(kernel, arguments + [.ints(columns.indices), .floats(columns.weights), .ints(rows.indices),
                                                    .floats(rows.weights)],
                               globalSize: [(width + 7) / 8, height, input.planeCount], localSize: [8, 8, 1])
        case .area:
            let kernel = Kernel(.resizeArea, pixelType: input.elementType,
                                uint8: Self.area(UInt8.self), float32: Self.area(Float.self))
            try encoder.launchPerPixel(kernel, arguments + [.float32(scaleX), .float32(scaleY), .float32(1 / (scaleX * scaleY))],
                                       over: encoder.output.descriptor)
        }
    }

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

    /// The bilinear twin: the kernel's arithmetic on the same column and row tables.
    private static func bilinear<T: PixelElement>(_ type: T.Type) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let inWidth = invocation.int(2), inHeight = invocation.int(3), outWidth = invocation.int(4)
            let outHeight = invocation.int(5)
            CPUParallel.forEachRange(invocation.globalSize[2] * outHeight) { outputRows in
                let src = invocation.pointer(0, as: T.self), dst = invocation.pointer(1, as: T.self)
                let columns = invocation.pointer(6, as: Int32.self), columnWeights = invocation.pointer(7, as: Float.self)
                let rows = invocation.pointer(8, as: Int32.self), rowWeights = invocation.pointer(9, as: Float.self)
                for row in outputRows {
                    let plane = src + (row / outHeight) * inHeight * inWidth, y = row % outHeight
                    let top = plane + Int(rows[2 * y]) * inWidth, bottom = plane + Int(rows[2 * y + 1]) * inWidth
                    let ay = rowWeights[y]
                    let out = dst + row * outWidth
                    for x in 0..<outWidth {
                        let left = Int(columns[2 * x]), right = Int(columns[2 * x + 1]), ax = columnWeights[x]
                        let upper = (1 - ax) * top[left].floatValue + ax * top[right].floatValue
                        let lower = (1 - ax) * bottom[left].floatValue + ax * bottom[right].floatValue
                        out[x] = T(rounding: (1 - ay) * upper + ay * lower)
                    }
                }
            }
        }
    }

    private static func area<T: PixelElement>(_ type: T.Type) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let inWidth = invocation.int(2), inHeight = invocation.int(3), outWidth = invocation.int(4)
            let outHeight = invocation.int(5), scaleX = invocation.float(6), scaleY = invocation.float(7)
            let inverseArea = invocation.float(8)
            CPUParallel.forEachRange(invocation.globalSize[2] * outHeight) { rows in
                let src = invocation.pointer(0, as: T.self), dst = invocation.pointer(1, as: T.self)
                for row in rows {
                    let plane = src + (row / outHeight) * inHeight * inWidth, y = row % outHeight
                    let y0 = Float(y) * scaleY, y1 = min(Float(y + 1) * scaleY, Float(inHeight))
                    for x in 0..<outWidth {
                        let x0 = Float(x) * scaleX, x1 = min(Float(x + 1) * scaleX, Float(inWidth))
                        var sum: Float = 0
                        for iy in Int(y0.rounded(.down))..<min(Int(y1.rounded(.up)), inHeight) {
                            let wy = min(Float(iy + 1), y1) - max(Float(iy), y0)
                            var line: Float = 0
                            for ix in Int(x0.rounded(.down))..<min(Int(x1.rounded(.up)), inWidth) {
                                let wx = min(Float(ix + 1), x1) - max(Float(ix), x0)
                                line += wx * plane[iy * inWidth + ix].floatValue
                            }
                            sum += wy * line
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
