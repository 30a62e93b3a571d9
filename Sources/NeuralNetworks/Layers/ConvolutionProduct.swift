import ImageKernels

/// The CPU twins of `conv_gemm` and `conv_direct`: filters × columns in tiles of 4 filters × 16 columns.
/// Each tile's columns are first packed contiguously (copied from the columns, or gathered from the input
/// for the direct form), so that the inner loop streams through memory.
enum ConvolutionProduct {
    static func lowered(_ arguments: Convolution.Product) {
        let depth = Int(arguments.groupDepth), columns = Int(arguments.columns)
        run(
            columns: columns, groupOut: Int(arguments.groupOutChannels), depth: depth, spatial: Int(arguments.spatial),
            outChannels: Int(arguments.outChannels), ceiling: arguments.relu != 0 ? arguments.ceiling : nil,
            weights: arguments.weights.elements,
            bias: arguments.bias.elements, dst: arguments.dst.elements
        ) { panel, group, n, width in
            let source = arguments.cols.elements + group * depth * columns + n
            for k in 0..<depth {
                if width == 8 {
                    panel[k] = UnsafeRawPointer(source + k * columns).loadUnaligned(as: SIMD8<Float>.self)
                } else {
                    var v = SIMD8<Float>(repeating: 0)
                    for i in 0..<width { v[i] = source[k * columns + i] }
                    panel[k] = v
                }
            }
        }
    }

    static func direct(_ a: Convolution.Direct) {
        let channels = Int(a.channels), height = Int(a.height), width = Int(a.width)
        let kh = Int(a.kernelHeight), kw = Int(a.kernelWidth), sy = Int(a.strideY), sx = Int(a.strideX)
        let py = Int(a.paddingY), px = Int(a.paddingX), outHeight = Int(a.outHeight), outWidth = Int(a.outWidth)
        let groupOut = Int(a.groupOutChannels), outChannels = Int(a.outChannels)
        let groupChannels = channels / (outChannels / groupOut), spatial = outHeight * outWidth
        let product = { (pack: @Sendable (UnsafeMutablePointer<SIMD8<Float>>, Int, Int, Int) -> Void) in
            run(
                columns: Int(a.batch) * spatial, groupOut: groupOut, depth: groupChannels * kh * kw, spatial: spatial,
                outChannels: outChannels, ceiling: a.relu != 0 ? a.ceiling : nil, weights: a.weights.elements,
                bias: a.bias.elements, dst: a.dst.elements, pack: pack)
        }
        // A 1 × 1 filter with unit stride and no padding reads the input's channels at its columns' pixels.
        if kh == 1, kw == 1, sy == 1, sx == 1, py == 0, px == 0, outWidth == width {
            return product(
                pixelChannels(of: a.src.elements, channels: channels, groupChannels: groupChannels, spatial: spatial))
        }
        // Otherwise the fields are read from a zero-bordered copy of the input: where the eight columns lie in
        // one output row, each window row as a vector; elsewhere as ZeroBorderedPlanes.CrossingColumns reads
        // them.
        ZeroBorderedPlanes.withCopy(
            forWindowsOf: a.src.elements, planes: Int(a.batch) * channels, sourceHeight: height, sourceWidth: width,
            kernel: (kh, kw), stride: (sy, sx), padding: (py, px), outputs: (outHeight, outWidth)
        ) { padded in
            product { panel, group, n, lanes in
                func origin(_ column: Int) -> Int {
                    let b = column / spatial, p = column % spatial
                    return (b * channels + group * groupChannels) * padded.planeSize
                        + p / outWidth * sy * padded.width + p % outWidth * sx
                }
                if n % spatial % outWidth + 8 <= outWidth, sx <= 2 {
                    let first = padded.base + origin(n)
                    var k = 0
                    for c in 0..<groupChannels {
                        for ky in 0..<kh {
                            let line = first + c * padded.planeSize + ky * padded.width
                            for kx in 0..<kw {
                                panel[k] = (line + kx).loadEight(stride: sx)
                                k += 1
                            }
                        }
                    }
                    return
                }
                var origins = SIMD8<Int>()
                for i in 0..<8 { origins[i] = origin(n + min(i, lanes - 1)) }
                let crossing = ZeroBorderedPlanes.CrossingColumns(origins: origins, columns: lanes, stride: sx)
                let first = padded.base + origins[0]
                var k = 0
                for c in 0..<groupChannels {
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            panel[k] = crossing.load(first + c * padded.planeSize + ky * padded.width + kx, stride: sx)
                            k += 1
                        }
                    }
                }
            }
        }
    }

    /// The packing of a 1 × 1 filter with unit stride and no padding: its fields are the input's channels at
    /// the columns' pixels, read as vectors where the eight lie side by side in one image (lanes past the
    /// columns repeat the last).
    static func pixelChannels(
        of src: UnsafePointer<Float>, channels: Int, groupChannels: Int, spatial: Int
    ) -> @Sendable (UnsafeMutablePointer<SIMD8<Float>>, Int, Int, Int) -> Void {
        nonisolated(unsafe) let src = src
        return { panel, group, n, lanes in
            let group = group * groupChannels
            if lanes == 8, n % spatial + 8 <= spatial {
                let pixels = src + (n / spatial * channels + group) * spatial + n % spatial
                for c in 0..<groupChannels {
                    panel[c] = UnsafeRawPointer(pixels + c * spatial).loadUnaligned(as: SIMD8<Float>.self)
                }
                return
            }
            for i in 0..<8 {
                let column = n + min(i, lanes - 1)
                let pixel = src + (column / spatial * channels + group) * spatial + column % spatial
                for c in 0..<groupChannels { panel[c][i] = pixel[c * spatial] }
            }
        }
    }

    /// A tensor added to a product's sums before they are clamped (a residual connection): `channels`
    /// planes of the output's size an image, read as zero past them.
    struct Residual {
        let values: UnsafePointer<Float>
        let channels: Int
    }

    /// Fills both panels of a tile of sixteen columns at once (`packSixteen(low, high, group, n)`) where it can,
    /// and says whether it did.
    typealias PackSixteen =
        @Sendable (
            UnsafeMutablePointer<SIMD8<Float>>, UnsafeMutablePointer<SIMD8<Float>>, Int, Int
        ) -> Bool

    /// Tiles of 16 columns over groups in parallel, each as two panels of eight; `pack(panel, group, n,
    /// width)` fills a panel of `depth` × 8 values for columns `n..<n + width` (zeros past them), unless
    /// `packSixteen` fills both of a whole tile (``Product/multiply(from:to:group:panels:pack:packSixteen:)``).
    static func run(
        columns: Int, groupOut: Int, depth: Int, spatial: Int, outChannels: Int, ceiling: Float?,
        weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, residual: Residual? = nil,
        dst: UnsafeMutablePointer<Float>, pack: @Sendable (UnsafeMutablePointer<SIMD8<Float>>, Int, Int, Int) -> Void,
        packSixteen: PackSixteen? = nil
    ) {
        let tiles = (columns + 15) / 16
        let product = Product(
            groupOut: groupOut, depth: depth, spatial: spatial, outChannels: outChannels, ceiling: ceiling,
            weights: weights, bias: bias, residual: residual, dst: dst)
        CPUParallel.forEachRange(tiles * (outChannels / groupOut)) { range in
            let panels = Panels(depth: depth)
            defer { panels.deallocate() }
            for item in range {
                product.multiply(
                    from: item % tiles * 16, to: columns, group: item / tiles, panels: panels, pack: pack,
                    packSixteen: packSixteen)
            }
        }
    }

    /// The two panels of eight columns a tile is packed into, `depth` vectors each; or room for several tiles'
    /// panels, each tile's at ``tile(_:depth:)``.
    struct Panels {
        let low: UnsafeMutablePointer<SIMD8<Float>>
        let high: UnsafeMutablePointer<SIMD8<Float>>

        init(depth: Int, tiles: Int = 1) {
            low = .allocate(capacity: depth * tiles)
            high = .allocate(capacity: depth * tiles)
        }

        private init(low: UnsafeMutablePointer<SIMD8<Float>>, high: UnsafeMutablePointer<SIMD8<Float>>) {
            (self.low, self.high) = (low, high)
        }

        /// The panels of tile `index` in room for several tiles of `depth` vectors.
        func tile(_ index: Int, depth: Int) -> Panels { Panels(low: low + index * depth, high: high + index * depth) }

        func deallocate() {
            low.deallocate()
            high.deallocate()
        }
    }

    /// A product's filters, biases and outputs: filters × columns, a group's `groupOut` filters of `depth`
    /// values against its columns, each column an output pixel (`spatial` an image).
    struct Product: @unchecked Sendable {
        let groupOut: Int, depth: Int, spatial: Int, outChannels: Int
        let ceiling: Float?
        let weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let residual: Residual?
        let dst: UnsafeMutablePointer<Float>

        /// The tile of columns `n..<min(n + 16, end)` of `group`, packed into `panels` and multiplied: four
        /// filters with both panels at once (a ``RegisterTile``; eight, a ``WideRegisterTile``, in builds with
        /// AVX-512), with one where the columns end within eight. Outputs are clamped to `0...ceiling` where it
        /// is given, after `residual` is added where there is one.
        @inline(__always)
        func multiply(
            from n: Int, to end: Int, group: Int, panels: Panels,
            pack: (UnsafeMutablePointer<SIMD8<Float>>, Int, Int, Int) -> Void,
            packSixteen: ((UnsafeMutablePointer<SIMD8<Float>>, UnsafeMutablePointer<SIMD8<Float>>, Int, Int) -> Bool)?
        ) {
            let lowWidth = min(8, end - n), highWidth = min(8, end - n - 8)
            if highWidth < 8 || !(packSixteen?(panels.low, panels.high, group, n) ?? false) {
                pack(panels.low, group, n, lowWidth)
                if highWidth > 0 { pack(panels.high, group, n + 8, highWidth) }
            }
            multiply(packed: panels, from: n, to: end, group: group)
        }

        /// ``multiply(from:to:group:panels:pack:packSixteen:)`` of a tile whose `panels` are packed already.
        @inline(__always)
        func multiply(packed panels: Panels, from n: Int, to end: Int, group: Int) {
            let (low, high) = (panels.low, panels.high)
            let lowWidth = min(8, end - n), highWidth = min(8, end - n - 8)
            let lowOut = OutputColumns(first: n, width: lowWidth, spatial: spatial)
            let highOut = OutputColumns(first: n + 8, width: highWidth, spatial: spatial)
            var m = 0
            #if FACESEARCH_AVX512
                // Eight filters at a time where sixteen columns are there, then the rest four at a time.
                while highWidth > 0, m + 8 <= groupOut {
                    let oc = group * groupOut + m
                    let tile = WideRegisterTile(
                        rows: weights + oc * depth, stride: depth, low: low, high: high, depth: depth)
                    for row in 0..<8 {
                        let sums = tile.sums(row: row)
                        store(sums.lowHalf, oc + row, lowOut)
                        store(sums.highHalf, oc + row, highOut)
                    }
                    m += 8
                }
            #endif
            while m < groupOut {
                let rows = min(4, groupOut - m), oc = group * groupOut + m
                let a0 = weights + oc * depth
                let a1 = weights + (oc + min(1, rows - 1)) * depth
                let a2 = weights + (oc + min(2, rows - 1)) * depth
                let a3 = weights + (oc + min(3, rows - 1)) * depth
                if highWidth > 0 {
                    let tile = RegisterTile(a0, a1, a2, a3, low: low, high: high, depth: depth)
                    for row in 0..<rows {
                        store(tile.sums(row: row, half: 0), oc + row, lowOut)
                        store(tile.sums(row: row, half: 1), oc + row, highOut)
                    }
                } else {
                    var acc0 = SIMD8<Float>(), acc1 = SIMD8<Float>(), acc2 = SIMD8<Float>(), acc3 = SIMD8<Float>()
                    for k in 0..<depth {
                        let v = low[k]
                        acc0.addProduct(SIMD8(repeating: a0[k]), v)
                        acc1.addProduct(SIMD8(repeating: a1[k]), v)
                        acc2.addProduct(SIMD8(repeating: a2[k]), v)
                        acc3.addProduct(SIMD8(repeating: a3[k]), v)
                    }
                    for (row, sums) in [acc0, acc1, acc2, acc3].prefix(rows).enumerated() {
                        store(sums, oc + row, lowOut)
                    }
                }
                m += rows
            }
        }

        /// Eight sums of filter `oc` for columns `out` into the output. Kept small, so that it is inlined at
        /// every tile's stores: fewer columns go through ``storePart(_:_:_:)``.
        @inline(__always)
        private func store(_ acc: SIMD8<Float>, _ oc: Int, _ out: OutputColumns) {
            guard out.sideBySide else { return storePart(acc, oc, out) }
            var values = acc + bias[oc]
            if let residual, oc < residual.channels {
                let sums = residual.values + (out.image * residual.channels + oc) * spatial + out.position
                values += UnsafeRawPointer(sums).loadUnaligned(as: SIMD8<Float>.self)
            }
            if let ceiling { values = values.rectified(ceiling: ceiling) }
            let target = dst + (out.image * outChannels + oc) * spatial + out.position
            UnsafeMutableRawPointer(target).storeBytes(of: values, as: SIMD8<Float>.self)
        }

        /// ``store(_:_:_:)`` where the columns are fewer than eight, lane by lane: where they lie in one image
        /// without working out each one's image (rows of outputs that are not whole vectors store such a part
        /// a row), else each where it goes.
        private func storePart(_ acc: SIMD8<Float>, _ oc: Int, _ out: OutputColumns) {
            var values = acc + bias[oc]
            func place(_ lane: Int) -> (image: Int, position: Int) {
                guard !out.inOneImage else { return (out.image, out.position + lane) }
                let column = out.first + lane
                return (column / spatial, column % spatial)
            }
            if let residual, oc < residual.channels {
                for i in 0..<out.width {
                    let (b, p) = place(i)
                    values[i] += residual.values[(b * residual.channels + oc) * spatial + p]
                }
            }
            if let ceiling { values = values.rectified(ceiling: ceiling) }
            for i in 0..<out.width {
                let (b, p) = place(i)
                dst[(b * outChannels + oc) * spatial + p] = values[i]
            }
        }
    }
}

/// Eight of a product's columns as outputs: the first and how many there are, the image of the first and its
/// position there, whether they all lie in that image (most do), and whether they are eight.
private struct OutputColumns {
    let first: Int, width: Int, image: Int, position: Int
    let inOneImage: Bool, sideBySide: Bool

    init(first: Int, width: Int, spatial: Int) {
        (self.first, self.width, image, position) = (first, width, first / spatial, first % spatial)
        inOneImage = position + width <= spatial
        sideBySide = width == 8 && inOneImage
    }
}
