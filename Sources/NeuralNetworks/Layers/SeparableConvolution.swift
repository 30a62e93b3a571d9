import ImageKernels
import NeuralNetworksCL

/// A depthwise-separable convolution as one layer: optionally a 1 × 1 expansion first (with a bias,
/// optionally clamped to `0...expansionCeiling`), then a depthwise convolution (one `kernelWidth` ×
/// `kernelHeight` filter a channel, with a bias, optionally clamped to `0...depthwiseCeiling`), then a 1 × 1
/// convolution of its channels with a bias, then optionally a residual tensor added, then optionally a ReLU
/// (clamped to `0...ceiling`). MobileNet-style networks (BlazeFace, EfficientNet-Lite) are built of these;
/// with the expansion, a whole inverted-residual block.
///
/// Inputs: the tensor; where it ``expands``, the expansion's filters (the tensor's channels wide, a row an
/// expanded channel) and biases; the depthwise filters (`kernelHeight · kernelWidth` wide, a row a channel)
/// and biases; the 1 × 1 filters (the depthwise channels wide, a row an output channel) and biases; and
/// optionally the residual, of the output's batch, width and height with at most its channels (read as zero
/// past them).
///
/// On the CPU device it runs ``Method/fused`` where output rows hold sixteen columns or more: the depthwise
/// values are formed straight into the product's packed columns, so they never pass through memory, and the
/// expansion is formed band by band as the depthwise half reads it (`ExpandedRows`), so the expanded tensor
/// is never written whole. Elsewhere it runs ``Method/split``. Both take in the sum and the ReLU where the
/// product is stored, and add the same terms in the same order as the layers one after another
/// (``Convolution``, then ``ResidualAdd``).
public struct SeparableConvolution: Filter {
    /// How the layer is run.
    public enum Method: Sendable {
        /// Fused on the CPU device where output rows are at least sixteen wide, and whole tiles of sixteen for
        /// kernels larger than 3 × 3; split elsewhere. Narrower rows make the fused twin form its columns eight
        /// at a time across rows, and their depthwise values are few enough to stay in the caches between the
        /// two kernels (roofline-bench: EfficientNet-Lite0's 5 × 5 layers at 14 × 14 and 7 × 7 take 0.7 of the
        /// time split); a tile that crosses rows reads each tap blended from both, and for 25 taps that costs
        /// more than the split form's pass through the caches (its 5 × 5 layers at 28 × 28: 0.8 of the time
        /// split). Fused, the expansion is formed in the kernel where the tensor's rows are whole vectors of
        /// eight, and launched before it elsewhere.
        case automatic
        /// One kernel (`conv_separable`), the expansion included.
        case fused
        /// The expansion into scratch where there is one (``Convolution``), the depthwise convolution into
        /// scratch (`conv_depthwise`), then the 1 × 1 product with the sum (`conv_pointwise`).
        case split
    }

    public let kernelWidth: Int
    public let kernelHeight: Int
    public let strideX: Int
    public let strideY: Int
    public let paddingX: Int
    public let paddingY: Int
    /// The zero padding after the last column and row (the leading paddings unless given).
    public let trailingPaddingX: Int
    public let trailingPaddingY: Int
    /// Whether a 1 × 1 expansion comes first (the inputs after the tensor are then its filters and biases).
    public let expands: Bool
    /// The most an expanded value can be, where the expansion is clamped; nil where it is not.
    public let expansionCeiling: Float?
    /// The most a depthwise value can be, where the depthwise convolution is clamped (a ReLU or ReLU6
    /// between the two halves); nil where it is not.
    public let depthwiseCeiling: Float?
    /// The most an output can be, where outputs are clamped; nil where they are not.
    public let ceiling: Float?
    public let method: Method
    public var name: String { "separable convolution \(kernelWidth)×\(kernelHeight)/\(strideX)" }

    public init(
        kernelWidth: Int, kernelHeight: Int, strideX: Int = 1, strideY: Int = 1, paddingX: Int = 0,
        paddingY: Int = 0, trailingPaddingX: Int? = nil, trailingPaddingY: Int? = nil, expands: Bool = false,
        expansionCeiling: Float? = nil, depthwiseCeiling: Float? = nil, ceiling: Float? = nil,
        method: Method = .automatic
    ) {
        self.kernelWidth = kernelWidth
        self.kernelHeight = kernelHeight
        self.strideX = strideX
        self.strideY = strideY
        self.paddingX = paddingX
        self.paddingY = paddingY
        self.trailingPaddingX = trailingPaddingX ?? paddingX
        self.trailingPaddingY = trailingPaddingY ?? paddingY
        self.expands = expands
        self.expansionCeiling = expansionCeiling
        self.depthwiseCeiling = depthwiseCeiling
        self.ceiling = ceiling
        self.method = method
    }

    /// The depthwise half over `channels` channels as a ``Convolution``: it checks its shapes and gives its
    /// arguments in the split form.
    private func depthwise(channels: Int) -> Convolution {
        Convolution(
            kernelWidth: kernelWidth, kernelHeight: kernelHeight, strideX: strideX, strideY: strideY,
            paddingX: paddingX, paddingY: paddingY, trailingPaddingX: trailingPaddingX,
            trailingPaddingY: trailingPaddingY, groups: channels, rectified: depthwiseCeiling != nil,
            ceiling: depthwiseCeiling ?? .infinity)
    }

    /// The expansion as a ``Convolution``: it checks its shapes and runs it in the split form.
    private var expansion: Convolution {
        Convolution(
            kernelWidth: 1, kernelHeight: 1, rectified: expansionCeiling != nil, ceiling: expansionCeiling ?? .infinity)
    }

    /// The layer's inputs by part (descriptors or images).
    private struct Parts<Input> {
        let tensor: Input
        let expansion: (filters: Input, biases: Input)?
        let depthwise: (filters: Input, biases: Input)
        let pointwise: (filters: Input, biases: Input)
        let residual: Input?
    }

    /// `inputs` by part, or nil where there are not as many as the layer takes.
    private func parts<Input>(of inputs: [Input]) -> Parts<Input>? {
        let first = expands ? 3 : 1
        guard inputs.count == first + 4 || inputs.count == first + 5 else { return nil }
        return Parts(
            tensor: inputs[0], expansion: expands ? (inputs[1], inputs[2]) : nil,
            depthwise: (inputs[first], inputs[first + 1]), pointwise: (inputs[first + 2], inputs[first + 3]),
            residual: inputs.count == first + 5 ? inputs[first + 4] : nil)
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard let parts = parts(of: inputs) else {
            throw .invalidInput(
                filter: name,
                reason: """
                    takes a tensor, \(expands ? "the expansion's filters and biases, " : "")two filters and two \
                    biases and optionally a residual, got \(inputs.count) inputs
                    """)
        }
        var input = parts.tensor
        if let expansion = parts.expansion {
            input = try self.expansion.outputDescriptor(for: [input, expansion.filters, expansion.biases])
        }
        let (filters, biases) = parts.pointwise
        let spatial = try depthwise(channels: input.channels).outputDescriptor(
            for: [input, parts.depthwise.filters, parts.depthwise.biases])
        guard parts.depthwise.filters.height == input.channels else {
            throw .invalidInput(
                filter: name,
                reason: "\(parts.depthwise.filters.height) depthwise filters for \(input.channels) channels")
        }
        guard filters.elementType == .float32, biases.elementType == .float32, filters.width == input.channels,
            filters.planeCount == 1, biases.planeCount == 1, biases.width * biases.height == filters.height
        else {
            throw .invalidInput(
                filter: name,
                reason: "1 × 1 filters \(filters) and biases \(biases) do not fit \(input.channels) channels")
        }
        let output = ImageDescriptor(
            width: spatial.width, height: spatial.height, channels: filters.height, batch: input.batch,
            elementType: .float32)
        if let residual = parts.residual {
            guard residual.elementType == .float32, residual.batch == output.batch, residual.width == output.width,
                residual.height == output.height, residual.channels <= output.channels
            else {
                throw .invalidInput(filter: name, reason: "residual \(residual) does not fit the output \(output)")
            }
        }
        return output
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        guard let parts = parts(of: encoder.inputs) else {
            throw .invalidInput(filter: name, reason: "takes \(encoder.inputs.count) inputs it was not checked for")
        }
        let output = encoder.output.descriptor, channels = parts.depthwise.filters.descriptor.height
        // Without a residual the kernels are given the biases in its place and read none of it, and without an
        // expansion its weights are the depthwise ones, unread.
        let residual = parts.residual ?? parts.pointwise.biases
        let residualChannels = Int32(parts.residual?.descriptor.channels ?? 0)
        let fused =
            switch method {
            case .automatic:
                encoder.device.kind == .cpu && output.width >= 16
                    && (output.width % 16 == 0 || kernelWidth * kernelHeight <= 9)
            case .fused: true
            case .split: false
            }
        // Automatically, the fused twin forms the expansion where the tensor's rows are whole vectors of eight;
        // a row's part vector costs more than the expanded tensor's passage through memory saves
        // (EfficientNet-Lite0's 28-wide 5 × 5 layer took 1.1 × the time with its expansion in the twin).
        let expandsInKernel = fused && (method == .fused || parts.tensor.descriptor.width % 8 == 0)
        var tensor = parts.tensor
        if let expansion = parts.expansion, !expandsInKernel {
            let input = tensor.descriptor
            tensor = try encoder.temporaryImage(
                ImageDescriptor(
                    width: input.width, height: input.height, channels: channels, batch: input.batch,
                    elementType: .float32))
            try self.expansion.encode(
                encoder, src: parts.tensor, weights: expansion.filters, biases: expansion.biases, dst: tensor)
        }
        let input = tensor.descriptor
        if fused {
            let expansion = parts.expansion ?? parts.depthwise
            try encoder.launch(
                Self.kernel,
                Arguments(
                    src: .init(tensor), expansionWeights: .init(expansion.filters),
                    expansionBias: .init(expansion.biases), depthwiseWeights: .init(parts.depthwise.filters),
                    depthwiseBias: .init(parts.depthwise.biases), weights: .init(parts.pointwise.filters),
                    bias: .init(parts.pointwise.biases), residual: .init(residual), dst: .init(encoder.output),
                    inChannels: Int32(expandsInKernel && parts.expansion != nil ? input.channels : 0),
                    channels: Int32(channels),
                    height: Int32(input.height), width: Int32(input.width), kernelHeight: Int32(kernelHeight),
                    kernelWidth: Int32(kernelWidth), strideY: Int32(strideY), strideX: Int32(strideX),
                    paddingY: Int32(paddingY), paddingX: Int32(paddingX), outHeight: Int32(output.height),
                    outWidth: Int32(output.width), batch: Int32(input.batch), outChannels: Int32(output.channels),
                    expansionRelu: expansionCeiling != nil ? 1 : 0, expansionCeiling: expansionCeiling ?? .infinity,
                    depthwiseRelu: depthwiseCeiling != nil ? 1 : 0, depthwiseCeiling: depthwiseCeiling ?? .infinity,
                    residualChannels: residualChannels, relu: ceiling != nil ? 1 : 0, ceiling: ceiling ?? .infinity),
                over: [input.batch * output.width * output.height, (output.channels + 3) / 4])
            return
        }
        let values = try encoder.temporaryImage(
            ImageDescriptor(
                width: output.width, height: output.height, channels: channels, batch: input.batch,
                elementType: .float32))
        try encoder.launch(
            Convolution.depthwise,
            depthwise(channels: channels).directArguments(
                src: tensor, weights: parts.depthwise.filters, biases: parts.depthwise.biases, dst: values),
            over: [output.width, output.height, input.batch * channels])
        try encoder.launch(
            Self.pointwise,
            Pointwise(
                src: .init(values), weights: .init(parts.pointwise.filters), bias: .init(parts.pointwise.biases),
                residual: .init(residual), dst: .init(encoder.output), channels: Int32(channels),
                spatial: Int32(output.width * output.height), batch: Int32(input.batch),
                outChannels: Int32(output.channels), residualChannels: residualChannels,
                relu: ceiling != nil ? 1 : 0, ceiling: ceiling ?? .infinity),
            over: [input.batch * output.width * output.height, (output.channels + 3) / 4])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var expansionWeights: KernelBuffer<Float>
        var expansionBias: KernelBuffer<Float>
        var depthwiseWeights: KernelBuffer<Float>
        var depthwiseBias: KernelBuffer<Float>
        var weights: KernelBuffer<Float>
        var bias: KernelBuffer<Float>
        var residual: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var inChannels: Int32
        var channels: Int32
        var height: Int32
        var width: Int32
        var kernelHeight: Int32
        var kernelWidth: Int32
        var strideY: Int32
        var strideX: Int32
        var paddingY: Int32
        var paddingX: Int32
        var outHeight: Int32
        var outWidth: Int32
        var batch: Int32
        var outChannels: Int32
        var expansionRelu: Int32
        var expansionCeiling: Float
        var depthwiseRelu: Int32
        var depthwiseCeiling: Float
        var residualChannels: Int32
        var relu: Int32
        var ceiling: Float
    }

    struct Pointwise: KernelArguments {
        var src: KernelBuffer<Float>
        var weights: KernelBuffer<Float>
        var bias: KernelBuffer<Float>
        var residual: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var channels: Int32
        var spatial: Int32
        var batch: Int32
        var outChannels: Int32
        var residualChannels: Int32
        var relu: Int32
        var ceiling: Float
    }

    static let kernel = Kernel<Arguments>(
        "conv_separable", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        options: "-cl-mad-enable",
        schedules: Convolution.productSchedules
    ) { arguments, _ in
        fused(arguments)
    }

    static let pointwise = Kernel<Pointwise>(
        "conv_pointwise", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        options: "-cl-mad-enable",
        schedules: Convolution.productSchedules
    ) { a, _ in
        let channels = Int(a.channels), spatial = Int(a.spatial)
        ConvolutionProduct.run(
            columns: Int(a.batch) * spatial, groupOut: Int(a.outChannels), depth: channels, spatial: spatial,
            outChannels: Int(a.outChannels), ceiling: a.relu != 0 ? a.ceiling : nil, weights: a.weights.elements,
            bias: a.bias.elements,
            residual: a.residualChannels > 0
                ? .init(values: a.residual.elements, channels: Int(a.residualChannels))
                : nil,
            dst: a.dst.elements,
            pack: ConvolutionProduct.pixelChannels(
                of: a.src.elements, channels: channels, groupChannels: channels, spatial: spatial))
    }

    /// The twin of `conv_separable`: bands of output rows in parallel, each band's input rows (expanded first,
    /// where the layer expands, by ``ExpandedRows``) copied inside a border of zeros
    /// (``ZeroBorderedPlanes/Band``) small enough to stay in the core's caches, then its tiles'
    /// depthwise values formed from the copy as they are packed and multiplied as ``Convolution``'s twins do
    /// (``ConvolutionProduct``). Sixteen columns (or eight) in one output row are formed as vectors, each window
    /// row a load, four channels at a time so that four sums are in flight; at stride 1 where rows are whole
    /// tiles, sixteen columns of four rows
    /// (``depthwiseFourRows(at:planeSize:rowLength:channels:kernel:filters:biases:ceiling:into:)``). Taps are
    /// added after the bias in the kernel's order, as in ``DepthwiseConvolution``.
    private static func fused(_ a: Arguments) {
        let channels = Int(a.channels), height = Int(a.height), width = Int(a.width)
        let kh = Int(a.kernelHeight), kw = Int(a.kernelWidth), sy = Int(a.strideY), sx = Int(a.strideX)
        let py = Int(a.paddingY), px = Int(a.paddingX), outHeight = Int(a.outHeight), outWidth = Int(a.outWidth)
        let spatial = outHeight * outWidth, depthwiseCeiling: Float? = a.depthwiseRelu != 0 ? a.depthwiseCeiling : nil
        let inChannels = Int(a.inChannels), expansionCeiling: Float? = a.expansionRelu != 0 ? a.expansionCeiling : nil
        nonisolated(unsafe) let src = a.src.elements
        nonisolated(unsafe) let (filters, biases) = (a.depthwiseWeights.elements, a.depthwiseBias.elements)
        let product = ConvolutionProduct.Product(
            groupOut: Int(a.outChannels), depth: channels, spatial: spatial, outChannels: Int(a.outChannels),
            ceiling: a.relu != 0 ? a.ceiling : nil, weights: a.weights.elements, bias: a.bias.elements,
            residual: a.residualChannels > 0
                ? .init(values: a.residual.elements, channels: Int(a.residualChannels)) : nil,
            dst: a.dst.elements)
        let bands = SeparableBands(
            channels: channels, sourceWidth: width, kernel: (kh, kw), stride: (sy, sx), padding: px,
            outputs: (outHeight, outWidth))
        CPUParallel.forEachRange(Int(a.batch) * bands.perImage) { items in
            // Bands are copied from the tensor, or, where the layer expands, formed in `expanded`'s window.
            let copy = ZeroBorderedPlanes.Band(
                values: inChannels > 0 ? 0 : channels * bands.sourceRows * bands.rowLength)
            let panels = ConvolutionProduct.Panels(depth: channels, tiles: bands.fourRows ? 4 : 1)
            // The range's bands are consecutive, so each band's expanded rows are mostly the last band's.
            var expanded =
                inChannels > 0
                ? ExpandedRows(
                    capacity: 2 * bands.sourceRows, rowLength: bands.rowLength, top: py, left: px, source: src,
                    inChannels: inChannels, height: height, width: width, channels: channels,
                    weights: a.expansionWeights.elements, biases: a.expansionBias.elements, ceiling: expansionCeiling
                ) : nil
            defer {
                copy.deallocate()
                panels.deallocate()
                expanded?.deallocate()
            }
            for item in items {
                let image = item / bands.perImage, top = item % bands.perImage * bands.rows
                let bottom = min(top + bands.rows, outHeight)
                let firstRow = top * sy - py, rowCount = (bottom - top - 1) * sy + kh
                let padded: ZeroBorderedPlanes
                if var rows = expanded {
                    padded = rows.rows(top * sy..<top * sy + rowCount, of: image)
                    expanded = rows
                } else {
                    padded = copy.fill(
                        from: src + image * channels * height * width, planes: channels, sourceHeight: height,
                        sourceWidth: width, firstRow: firstRow, left: px, height: rowCount, width: bands.rowLength)
                }
                /// Where column `column`'s window starts in channel 0 of the band's copy.
                func origin(_ column: Int) -> Int {
                    let p = column % spatial
                    return (p / outWidth - top) * sy * padded.width + p % outWidth * sx
                }
                let end = image * spatial + bottom * outWidth
                /// Packs the depthwise values of columns `n..<n + lanes` (at most eight) into `panel`.
                func pack(_ panel: UnsafeMutablePointer<SIMD8<Float>>, _: Int, _ n: Int, _ lanes: Int) {
                    @inline(__always) func depthwise(from n: Int, _ load: (UnsafePointer<Float>) -> SIMD8<Float>) {
                        Self.depthwise(
                            at: padded.base + origin(n), planeSize: padded.planeSize, rowLength: padded.width,
                            channels: channels, kernel: (kh, kw), filters: filters, biases: biases,
                            ceiling: depthwiseCeiling, load: load
                        ) { c, values in panel[c] = values }
                    }
                    if lanes == 8, n % spatial % outWidth + 8 <= outWidth {
                        switch sx {
                        case 1: return depthwise(from: n, { $0.loadEight(stride: 1) })
                        case 2: return depthwise(from: n, { $0.loadEight(stride: 2) })
                        default: return depthwise(from: n, { $0.loadEight(stride: sx) })
                        }
                    }
                    // Columns that cross rows: read as ZeroBorderedPlanes.CrossingColumns does.
                    var origins = SIMD8<Int>()
                    for i in 0..<8 { origins[i] = origin(n + min(i, lanes - 1)) }
                    let crossing = ZeroBorderedPlanes.CrossingColumns(origins: origins, columns: lanes, stride: sx)
                    switch sx {
                    case 1: depthwise(from: n, { crossing.load($0, stride: 1) })
                    case 2: depthwise(from: n, { crossing.load($0, stride: 2) })
                    default: depthwise(from: n, { crossing.load($0, stride: sx) })
                    }
                }
                /// Packs both panels of the sixteen columns from `n` where they lie in one output row at stride 1
                /// or 2 (each weight read once for all of them), and says whether it did.
                func packSixteen(
                    _ low: UnsafeMutablePointer<SIMD8<Float>>, _ high: UnsafeMutablePointer<SIMD8<Float>>, _: Int,
                    _ n: Int
                ) -> Bool {
                    guard sx <= 2, n % spatial % outWidth + 16 <= outWidth else { return false }
                    @inline(__always) func depthwise(_ load: (UnsafePointer<Float>) -> SIMD16<Float>) {
                        Self.depthwise(
                            at: padded.base + origin(n), planeSize: padded.planeSize, rowLength: padded.width,
                            channels: channels, kernel: (kh, kw), filters: filters, biases: biases,
                            ceiling: depthwiseCeiling, load: load
                        ) { c, values in (low[c], high[c]) = (values.lowHalf, values.highHalf) }
                    }
                    if sx == 1 {
                        depthwise { UnsafeRawPointer($0).loadUnaligned(as: SIMD16<Float>.self) }
                    } else {
                        depthwise { UnsafeRawPointer($0).loadUnaligned(as: SIMD32<Float>.self).evenHalf }
                    }
                    return true
                }
                // Where the bands say so (SeparableBands.fourRows), the sixteen columns of four output rows at once
                // (each input row's values loaded once for all the rows that read them), then each row's tile
                // multiplied. Rows short of four at the band's end, and every row elsewhere, in tiles of sixteen
                // columns as they lie.
                var row = top
                while bands.fourRows, row + 4 <= bottom {
                    let rowStart = image * spatial + row * outWidth
                    var x = 0
                    while x + 16 <= outWidth {
                        Self.depthwiseFourRows(
                            at: padded.base + origin(rowStart + x), planeSize: padded.planeSize,
                            rowLength: padded.width, channels: channels, kernel: (kh, kw), filters: filters,
                            biases: biases, ceiling: depthwiseCeiling, into: panels)
                        for r in 0..<4 {
                            let n = rowStart + r * outWidth + x
                            product.multiply(packed: panels.tile(r, depth: channels), from: n, to: n + 16, group: 0)
                        }
                        x += 16
                    }
                    row += 4
                }
                for n in stride(from: image * spatial + row * outWidth, to: end, by: 16) {
                    product.multiply(from: n, to: end, group: 0, panels: panels, pack: pack, packSixteen: packSixteen)
                }
            }
        }
    }

    /// The depthwise values of four output rows of sixteen columns at stride 1, whose windows start at `first`
    /// (the top row's) in channel 0 of a zero-bordered copy, into the panels of four tiles
    /// (``ConvolutionProduct/Panels/tile(_:depth:)``): the sums that
    /// ``depthwise(at:planeSize:rowLength:channels:kernel:filters:biases:ceiling:load:store:)`` forms, in its
    /// order, but each input row's values loaded once for all the output rows that read them, and, where the
    /// kernel is 3 × 3 or 5 × 5 (its taps unrolled), each weight once for all of them. A channel at a time: its
    /// four rows are the sums in flight.
    @inline(__always)
    private static func depthwiseFourRows(
        at first: UnsafePointer<Float>, planeSize: Int, rowLength: Int, channels: Int,
        kernel: (height: Int, width: Int), filters: UnsafePointer<Float>, biases: UnsafePointer<Float>,
        ceiling: Float?, into panels: ConvolutionProduct.Panels
    ) {
        @inline(__always) func form(_ kh: Int, _ kw: Int) {
            for c in 0..<channels {
                let plane = first + c * planeSize, w = filters + c * kh * kw
                let bias = SIMD16<Float>(repeating: biases[c])
                var s0 = bias, s1 = bias, s2 = bias, s3 = bias
                for i in 0..<kh + 3 {
                    for kx in 0..<kw {
                        let values = UnsafeRawPointer(plane + i * rowLength + kx).loadUnaligned(as: SIMD16<Float>.self)
                        // Output row r reads this input row as its kernel row i − r.
                        @inline(__always) func add(row r: Int, to sums: inout SIMD16<Float>) {
                            guard i >= r, i - r < kh else { return }
                            sums.addProduct(SIMD16(repeating: w[(i - r) * kw + kx]), values)
                        }
                        add(row: 0, to: &s0)
                        add(row: 1, to: &s1)
                        add(row: 2, to: &s2)
                        add(row: 3, to: &s3)
                    }
                }
                @inline(__always) func store(_ sums: SIMD16<Float>, row: Int) {
                    let values = ceiling.map { sums.rectified(ceiling: $0) } ?? sums
                    let tile = panels.tile(row, depth: channels)
                    (tile.low[c], tile.high[c]) = (values.lowHalf, values.highHalf)
                }
                store(s0, row: 0)
                store(s1, row: 1)
                store(s2, row: 2)
                store(s3, row: 3)
            }
        }
        switch kernel {
        case (3, 3): form(3, 3)
        case (5, 5): form(5, 5)
        default: form(kernel.height, kernel.width)
        }
    }

    /// The depthwise values of every channel at a row of columns whose windows start at `first` in channel 0
    /// of a zero-bordered copy (`planeSize` values a plane, `rowLength` a row): the bias, then each tap in the
    /// kernel's order, clamped to `0...ceiling` where there is one; `load` reads a tap's values of the columns
    /// side by side, `store` takes each channel's. Four channels at a time, so that four sums are in flight.
    @inline(__always)
    private static func depthwise<Vector: RectifiedLanes>(
        at first: UnsafePointer<Float>, planeSize: Int, rowLength: Int, channels: Int,
        kernel: (height: Int, width: Int),
        filters: UnsafePointer<Float>, biases: UnsafePointer<Float>, ceiling: Float?,
        load: (UnsafePointer<Float>) -> Vector, store: (Int, Vector) -> Void
    ) {
        let (kh, kw) = kernel
        @inline(__always) func clamped(_ sums: Vector) -> Vector { ceiling.map { sums.rectified(ceiling: $0) } ?? sums }
        var c = 0
        while c + 4 <= channels {
            let p0 = first + c * planeSize, p1 = p0 + planeSize, p2 = p1 + planeSize, p3 = p2 + planeSize
            let w0 = filters + c * kh * kw, w1 = w0 + kh * kw, w2 = w1 + kh * kw, w3 = w2 + kh * kw
            var s0 = Vector(repeating: biases[c]), s1 = Vector(repeating: biases[c + 1])
            var s2 = Vector(repeating: biases[c + 2]), s3 = Vector(repeating: biases[c + 3])
            for ky in 0..<kh {
                for kx in 0..<kw {
                    let tap = ky * kw + kx, offset = ky * rowLength + kx
                    s0.addProduct(Vector(repeating: w0[tap]), load(p0 + offset))
                    s1.addProduct(Vector(repeating: w1[tap]), load(p1 + offset))
                    s2.addProduct(Vector(repeating: w2[tap]), load(p2 + offset))
                    s3.addProduct(Vector(repeating: w3[tap]), load(p3 + offset))
                }
            }
            store(c, clamped(s0))
            store(c + 1, clamped(s1))
            store(c + 2, clamped(s2))
            store(c + 3, clamped(s3))
            c += 4
        }
        for c in c..<channels {
            let plane = first + c * planeSize, w = filters + c * kh * kw
            var sums = Vector(repeating: biases[c])
            for ky in 0..<kh {
                for kx in 0..<kw {
                    sums.addProduct(Vector(repeating: w[ky * kw + kx]), load(plane + ky * rowLength + kx))
                }
            }
            store(c, clamped(sums))
        }
    }
}

extension Image {
    /// This tensor through a depthwise-separable convolution (see ``SeparableConvolution``): where
    /// `expansionFilters` and `expansionBiases` are given, a 1 × 1 expansion first (clamped to
    /// `0...expansionCeiling` where that is given); the depthwise `filters` and `biases`, then the 1 × 1
    /// `pointwiseFilters` and `pointwiseBiases`, plus `residual` where given, then clamped to `0...ceiling`
    /// where a ceiling is given.
    public func separablyConvolved(
        expansionFilters: Image? = nil, expansionBiases: Image? = nil, expansionCeiling: Float? = nil,
        depthwiseFilters: Image, depthwiseBiases: Image, kernelWidth: Int, kernelHeight: Int, stride: Int = 1,
        padding: Int = 0, trailingPadding: Int? = nil, depthwiseCeiling: Float? = nil, pointwiseFilters: Image,
        pointwiseBiases: Image, adding residual: Image? = nil, ceiling: Float? = nil
    ) -> Image {
        let expansion = expansionFilters.flatMap { filters in expansionBiases.map { [filters, $0] } } ?? []
        return applying(
            SeparableConvolution(
                kernelWidth: kernelWidth, kernelHeight: kernelHeight, strideX: stride, strideY: stride,
                paddingX: padding, paddingY: padding, trailingPaddingX: trailingPadding,
                trailingPaddingY: trailingPadding, expands: !expansion.isEmpty, expansionCeiling: expansionCeiling,
                depthwiseCeiling: depthwiseCeiling, ceiling: ceiling),
            with: expansion + [depthwiseFilters, depthwiseBiases, pointwiseFilters, pointwiseBiases]
                + (residual.map { [$0] } ?? [])
        )
    }
}

extension Network {
    /// A depthwise convolution and the 1 × 1 convolution reading it as one operation (``SeparableConvolution``),
    /// optionally with a 1 × 1 expansion before it and a second input added before the 1 × 1 convolution's
    /// ReLU: ``Network/fused()`` makes them of the layers one after another.
    public struct SeparableConvolutionWeights: NetworkOperation {
        /// The 1 × 1 convolution whose output only the depthwise one reads, where there is one.
        public var expansion: ConvolutionWeights? = nil
        public var depthwise: ConvolutionWeights
        public var pointwise: ConvolutionWeights
        /// Whether the operation reads a second input and adds it (a residual connection).
        public var addsResidual = false

        public var weights: [(values: [Float], width: Int)] {
            (expansion?.weights ?? []) + depthwise.weights + pointwise.weights
        }

        public func apply(to inputs: [Image], weights: [Image]) -> Image {
            // The expansion's weights come first where there is one.
            let first = expansion == nil ? 0 : 2
            let output = { (residual: Image?, ceiling: Float?) in
                inputs[0].separablyConvolved(
                    expansionFilters: first > 0 ? weights[0] : nil, expansionBiases: first > 0 ? weights[1] : nil,
                    expansionCeiling: expansion.flatMap { $0.rectified ? $0.ceiling : nil },
                    depthwiseFilters: weights[first], depthwiseBiases: weights[first + 1],
                    kernelWidth: depthwise.kernelWidth, kernelHeight: depthwise.kernelHeight, stride: depthwise.stride,
                    padding: depthwise.padding, trailingPadding: depthwise.trailingPadding,
                    depthwiseCeiling: depthwise.rectified ? depthwise.ceiling : nil,
                    pointwiseFilters: weights[first + 2], pointwiseBiases: weights[first + 3], adding: residual,
                    ceiling: ceiling)
            }
            let ceiling = pointwise.rectified ? pointwise.ceiling : nil
            guard addsResidual else { return output(nil, ceiling) }
            // A residual the fused layer cannot take (larger, or of another size) is added after it.
            let fused = output(inputs[1], ceiling)
            if (try? fused.descriptor) != nil { return fused }
            return output(nil, nil).adding(inputs[1], rectified: ceiling != nil)
        }

        /// An affine map or a ReLU after it merges into the 1 × 1 convolution; not once a residual is added,
        /// which an affine map would scale too.
        public func followed(by next: any NetworkOperation) -> (any NetworkOperation)? {
            guard !addsResidual || next.isRectifier,
                let merged = pointwise.followed(by: next) as? ConvolutionWeights
            else { return nil }
            var result = self
            result.pointwise = merged
            return result
        }

        public func summed(rectified: Bool) -> (any NetworkOperation)? {
            guard !addsResidual, !pointwise.rectified else { return nil }
            var result = self
            result.addsResidual = true
            result.pointwise.rectified = rectified
            return result
        }

        /// A 1 × 1 convolution before it, whose output only it reads, becomes its expansion.
        public func preceded(by previous: any NetworkOperation) -> (any NetworkOperation)? {
            guard expansion == nil, let convolution = previous as? ConvolutionWeights, convolution.isPointwise
            else { return nil }
            var result = self
            result.expansion = convolution
            return result
        }
    }
}
