import ImageKernels
import NeuralNetworksCL

/// A 2-D convolution over NCHW float tensors: any kernel size, stride and zero padding (more after the
/// last row and column than before the first where TFLite's `SAME` rule asks for it), in groups
/// (`groups == channels` is depthwise), with a bias per filter and an optional ReLU (or ReLU6) fused in.
///
/// Inputs: the tensor, the filters (a float image `channels / groups · kernelHeight · kernelWidth` wide
/// and `outChannels` high, each row one filter in [channel][y][x] order) and the biases (`outChannels`
/// wide). Keep filters and biases resident (`RenderContext.makeResidentImage(_:)`) so that they cross
/// to the device once.
///
/// It runs as a matrix product of the filters and the receptive fields: lowered (every receptive field
/// laid out as a column in memory, then filters × columns, in registers or through local memory) or
/// direct (each work-item gathers its fields from the input as it multiplies), as ``Method`` says; a
/// depthwise convolution, where each filter reads one channel, has no product to form and runs as one
/// sum a window.
public struct Convolution: Filter {
    /// How the product is formed.
    public enum Method: Sendable {
        /// The faster way for the device: depthwise wherever each filter reads one channel; direct on the
        /// CPU device (no columns streamed through memory: window rows are read as vectors from a
        /// zero-bordered copy of the input) except for 1 × 1 filters over one image (its columns are the
        /// input itself); lowered on OpenCL CPUs (pocl runs the direct kernel's gathers slower), lowered with
        /// shared tiles on GPUs.
        case automatic
        /// Columns in memory (`conv_im2col`), then the product in register tiles (`conv_gemm`).
        case lowered
        /// Columns in memory, then the product in tiles shared through local memory (`conv_gemm_shared`):
        /// the form for GPUs.
        case loweredShared
        /// One kernel gathering its columns (`conv_direct`).
        case direct
        /// One sum a window (`conv_depthwise`), for `groups` equal to the input's channels.
        case depthwise
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
    public let groups: Int
    /// Whether outputs are clamped to `0...ceiling` (a ReLU fused into the launch).
    public let rectified: Bool
    /// The most a rectified output can be: infinity for a ReLU, 6 for a ReLU6.
    public let ceiling: Float
    public let method: Method
    public var name: String { "convolution \(kernelWidth)×\(kernelHeight)/\(strideX)" }

    public init(
        kernelWidth: Int, kernelHeight: Int, strideX: Int = 1, strideY: Int = 1, paddingX: Int = 0,
        paddingY: Int = 0, trailingPaddingX: Int? = nil, trailingPaddingY: Int? = nil, groups: Int = 1,
        rectified: Bool = false, ceiling: Float = .infinity,
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
        self.groups = groups
        self.rectified = rectified
        self.ceiling = ceiling
        self.method = method
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 3 else {
            throw .invalidInput(filter: name, reason: "takes a tensor, filters and biases, got \(inputs.count) inputs")
        }
        let (input, filters, biases) = (inputs[0], inputs[1], inputs[2])
        guard inputs.allSatisfy({ $0.elementType == .float32 }) else {
            throw .invalidInput(filter: name, reason: "takes float tensors")
        }
        guard kernelWidth > 0, kernelHeight > 0, strideX > 0, strideY > 0,
            min(paddingX, paddingY, trailingPaddingX, trailingPaddingY) >= 0,
            groups > 0
        else {
            throw .invalidInput(
                filter: name, reason: "kernel sizes and strides must be positive, paddings not negative")
        }
        guard input.channels % groups == 0, filters.height % groups == 0 else {
            throw .invalidInput(
                filter: name,
                reason: "\(input.channels) channels and \(filters.height) filters do not split into \(groups) groups")
        }
        let depth = input.channels / groups * kernelHeight * kernelWidth
        guard filters.width == depth, filters.planeCount == 1, biases.width * biases.height == filters.height,
            biases.planeCount == 1
        else {
            throw .invalidInput(
                filter: name,
                reason:
                    """
                    filters \(filters) and biases \(biases) do not fit \(input.channels / groups)-channel \
                    \(kernelWidth)×\(kernelHeight) filters
                    """
            )
        }
        let paddedWidth = input.width + paddingX + trailingPaddingX,
            paddedHeight = input.height + paddingY + trailingPaddingY
        let width = (paddedWidth - kernelWidth) / strideX + 1, height = (paddedHeight - kernelHeight) / strideY + 1
        guard paddedWidth >= kernelWidth, paddedHeight >= kernelHeight else {
            throw .invalidInput(
                filter: name, reason: "the \(input.width)×\(input.height) input is smaller than the kernel")
        }
        return ImageDescriptor(
            width: width, height: height, channels: filters.height, batch: input.batch, elementType: .float32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        try encode(
            encoder, src: encoder.input, weights: encoder.inputs[1], biases: encoder.inputs[2], dst: encoder.output)
    }

    /// Encodes the launches that fill `dst` from `src`, `weights` and `biases`: for filters that run a
    /// convolution as one of their steps (``SeparableConvolution``'s expansion).
    func encode(
        _ encoder: KernelEncoder, src: DeviceImage, weights: DeviceImage, biases: DeviceImage, dst: DeviceImage
    ) throws(RenderError) {
        let input = src.descriptor, output = dst.descriptor
        let groupOutChannels = output.channels / groups, depthwise = groups == input.channels
        // A 1 × 1 filter with unit stride and no padding over one image: the columns are the input as it is.
        let columnsAreInput =
            kernelWidth == 1 && kernelHeight == 1 && strideX == 1 && strideY == 1 && input.batch == 1
            && [paddingX, paddingY, trailingPaddingX, trailingPaddingY].allSatisfy { $0 == 0 }
        let method =
            switch self.method {
            case .automatic where depthwise: Method.depthwise
            case .automatic:
                encoder.device.kind == .cpu
                    ? (!columnsAreInput ? Method.direct : .lowered)
                    : encoder.schedule(for: Self.sharedGemm) == Self.sharedGemm.schedules.openCLGPU
                        ? .loweredShared : .lowered
            default: self.method
            }
        if method == .depthwise, !depthwise {
            throw .invalidInput(
                filter: name,
                reason: "depthwise takes one group a channel, not \(groups) groups of \(input.channels) channels")
        }
        if method == .direct || method == .depthwise {
            let arguments = directArguments(src: src, weights: weights, biases: biases, dst: dst)
            if method == .depthwise {
                try encoder.launch(
                    Self.depthwise, arguments, over: [output.width, output.height, input.batch * output.channels])
            } else {
                try encoder.launch(
                    Self.direct, arguments,
                    over: [
                        input.batch * output.width * output.height,
                        (groupOutChannels + Self.tileRows - 1) / Self.tileRows, groups,
                    ])
            }
            return
        }
        let rows = input.channels * kernelHeight * kernelWidth, columns = input.batch * output.width * output.height
        let cols =
            columnsAreInput
            ? src
            : try encoder.temporaryImage(ImageDescriptor(width: columns, height: rows, elementType: .float32))
        if !columnsAreInput {
            try encoder.launch(
                Self.im2col,
                Columns(
                    src: .init(src), cols: .init(cols), channels: Int32(input.channels),
                    height: Int32(input.height), width: Int32(input.width),
                    kernelHeight: Int32(kernelHeight), kernelWidth: Int32(kernelWidth),
                    strideY: Int32(strideY), strideX: Int32(strideX), paddingY: Int32(paddingY),
                    paddingX: Int32(paddingX), outHeight: Int32(output.height),
                    outWidth: Int32(output.width), batch: Int32(input.batch)),
                over: [columns, rows])
        }
        let product = Product(
            weights: .init(weights), cols: .init(cols), bias: .init(biases),
            dst: .init(dst), groupOutChannels: Int32(groupOutChannels), groupDepth: Int32(rows / groups),
            columns: Int32(columns), spatial: Int32(output.width * output.height), outChannels: Int32(output.channels),
            relu: rectified ? 1 : 0, ceiling: ceiling)
        if method == .loweredShared {
            // Work-groups of 32 × 4 items, each item 8 filters of one column (TILE, PER_ITEM in the source).
            try encoder.launch(Self.sharedGemm, product, over: [columns, (groupOutChannels + 31) / 32 * 4, groups])
        } else {
            try encoder.launch(
                Self.gemm, product, over: [columns, (groupOutChannels + Self.tileRows - 1) / Self.tileRows, groups])
        }
    }

    /// The arguments of `conv_direct` and `conv_depthwise` over `src` into `dst`.
    func directArguments(src: DeviceImage, weights: DeviceImage, biases: DeviceImage, dst: DeviceImage) -> Direct {
        let input = src.descriptor, output = dst.descriptor
        return Direct(
            src: .init(src), weights: .init(weights), bias: .init(biases), dst: .init(dst),
            channels: Int32(input.channels), height: Int32(input.height), width: Int32(input.width),
            kernelHeight: Int32(kernelHeight), kernelWidth: Int32(kernelWidth), strideY: Int32(strideY),
            strideX: Int32(strideX), paddingY: Int32(paddingY), paddingX: Int32(paddingX),
            outHeight: Int32(output.height), outWidth: Int32(output.width), batch: Int32(input.batch),
            groupOutChannels: Int32(output.channels / groups), outChannels: Int32(output.channels),
            relu: rectified ? 1 : 0, ceiling: ceiling)
    }

    struct Columns: KernelArguments {
        var src: KernelBuffer<Float>
        var cols: KernelMutableBuffer<Float>
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
    }

    struct Product: KernelArguments {
        var weights: KernelBuffer<Float>
        var cols: KernelBuffer<Float>
        var bias: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
        var groupOutChannels: Int32
        var groupDepth: Int32
        var columns: Int32
        var spatial: Int32
        var outChannels: Int32
        var relu: Int32
        var ceiling: Float
    }

    /// The arguments of the kernels that read the input as they go: `conv_direct` and `conv_depthwise`.
    struct Direct: KernelArguments {
        var src: KernelBuffer<Float>
        var weights: KernelBuffer<Float>
        var bias: KernelBuffer<Float>
        var dst: KernelMutableBuffer<Float>
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
        var groupOutChannels: Int32
        var outChannels: Int32
        var relu: Int32
        var ceiling: Float
    }

    /// Filters per work-item (TILE_M in the source).
    static let tileRows = 4

    /// The register-tiled products' schedule: VECTOR_WIDTH columns a work-item, 16 lanes on pocl (AVX2), 8
    /// in the CPU twin (SSE registers), 1 on GPUs.
    static let productSchedules = KernelSchedules(
        cpu: .init(workGroup: [1], vectorWidth: 8),
        openCLCPU: .init(workGroup: [16, 1, 1], vectorWidth: 16),
        openCLGPU: .init(workGroup: [64, 1, 1], vectorWidth: 1))

    static let im2col = Kernel<Columns>(
        "conv_im2col", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        schedules: .uniform([64, 1])
    ) { arguments, _ in
        let channels = Int(arguments.channels), height = Int(arguments.height), width = Int(arguments.width)
        let kh = Int(arguments.kernelHeight), kw = Int(arguments.kernelWidth), sy = Int(arguments.strideY),
            sx = Int(arguments.strideX)
        let py = Int(arguments.paddingY), px = Int(arguments.paddingX)
        let outHeight = Int(arguments.outHeight), outWidth = Int(arguments.outWidth), batch = Int(arguments.batch)
        let spatial = outHeight * outWidth, columns = batch * spatial
        CPUParallel.forEachRange(channels * kh * kw) { rows in
            let src = arguments.src.elements, cols = arguments.cols.elements
            for row in rows {
                let c = row / (kh * kw), ky = row % (kh * kw) / kw, kx = row % kw
                let line = cols + row * columns
                for b in 0..<batch {
                    let plane = src + (b * channels + c) * height * width
                    for oy in 0..<outHeight {
                        let y = oy * sy - py + ky, out = line + b * spatial + oy * outWidth
                        guard y >= 0, y < height else {
                            out.update(repeating: 0, count: outWidth)
                            continue
                        }
                        let source = plane + y * width
                        for ox in 0..<outWidth {
                            let x = ox * sx - px + kx
                            out[ox] = x >= 0 && x < width ? source[x] : 0
                        }
                    }
                }
            }
        }
    }

    static let gemm = Kernel<Product>(
        "conv_gemm", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        options: "-cl-mad-enable",
        schedules: productSchedules
    ) { arguments, _ in
        ConvolutionProduct.lowered(arguments)
    }

    /// Same arguments and results as ``gemm``, so the same twin. Its work-group is fixed by the source
    /// (TILE, PER_ITEM); `automatic` chooses it where its cooperative GPU schedule is in force whole (not
    /// cut to a device's smaller work-group limit).
    static let sharedGemm = Kernel<Product>(
        "conv_gemm_shared", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        options: "-cl-mad-enable",
        schedules: KernelSchedules(
            cpu: .init(workGroup: [32, 4, 1]), openCLCPU: .init(workGroup: [32, 4, 1]),
            openCLGPU: .init(workGroup: [32, 4, 1], cooperative: true))
    ) { arguments, _ in
        ConvolutionProduct.lowered(arguments)
    }

    static let direct = Kernel<Direct>(
        "conv_direct", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        options: "-cl-mad-enable",
        schedules: productSchedules
    ) { arguments, _ in
        ConvolutionProduct.direct(arguments)
    }

    /// One output a work-item, rows of 16 on pocl for its vectoriser to map onto lanes.
    static let depthwise = Kernel<Direct>(
        "conv_depthwise", in: KernelSource(name: "Convolution", bytes: NeuralNetworksCL.convolution),
        options: "-cl-mad-enable",
        schedules: KernelSchedules(
            cpu: .init(workGroup: [1]), openCLCPU: .init(workGroup: [16, 1, 1]),
            openCLGPU: .init(workGroup: [32, 4, 1]))
    ) { arguments, _ in
        DepthwiseConvolution.run(arguments)
    }
}

extension Image {
    /// This tensor convolved with `filters` (`outChannels` rows of `channels / groups · kh · kw`) plus
    /// `biases`, clamped to `0...ceiling` when `rectified`; see ``Convolution``.
    /// `trailingPadding` (default: `padding`) pads after the last row and column.
    public func convolved(
        filters: Image, biases: Image, kernelWidth: Int, kernelHeight: Int, stride: Int = 1,
        padding: Int = 0, trailingPadding: Int? = nil, groups: Int = 1, rectified: Bool = false,
        ceiling: Float = .infinity
    ) -> Image {
        applying(
            Convolution(
                kernelWidth: kernelWidth, kernelHeight: kernelHeight, strideX: stride, strideY: stride,
                paddingX: padding, paddingY: padding, trailingPaddingX: trailingPadding,
                trailingPaddingY: trailingPadding,
                groups: groups, rectified: rectified, ceiling: ceiling),
            with: [filters, biases])
    }
}

extension Network {
    /// A convolution as a network operation, its filters and biases resident: filters `outChannels` ×
    /// (channels / groups · kernelHeight · kernelWidth); `padding` before the first row and column,
    /// `trailingPadding` after the last. It takes in an affine map, a ReLU or a ReLU6 after it, and a depthwise
    /// one takes in a 1 × 1 convolution after it (a ``SeparableConvolutionWeights``).
    public struct ConvolutionWeights: NetworkOperation {
        public var filters: [Float]
        public var biases: [Float]
        public var kernelWidth: Int, kernelHeight: Int, stride: Int, padding: Int, trailingPadding: Int, groups: Int
        public var rectified: Bool
        /// The most a rectified output can be (6 for a ReLU6).
        public var ceiling: Float = .infinity
        public var outChannels: Int { biases.count }

        public init(
            filters: [Float], biases: [Float], kernelWidth: Int, kernelHeight: Int, stride: Int = 1, padding: Int = 0,
            trailingPadding: Int? = nil, groups: Int = 1, rectified: Bool = false
        ) {
            self.filters = filters
            self.biases = biases
            (self.kernelWidth, self.kernelHeight, self.stride, self.padding, self.groups) = (
                kernelWidth, kernelHeight, stride, padding, groups
            )
            self.trailingPadding = trailingPadding ?? padding
            self.rectified = rectified
        }

        public var weights: [(values: [Float], width: Int)] {
            [(filters, filters.count / outChannels), (biases, outChannels)]
        }

        public func apply(to inputs: [Image], weights: [Image]) -> Image {
            inputs[0].convolved(
                filters: weights[0], biases: weights[1], kernelWidth: kernelWidth, kernelHeight: kernelHeight,
                stride: stride, padding: padding, trailingPadding: trailingPadding, groups: groups,
                rectified: rectified,
                ceiling: ceiling)
        }

        /// Whether each filter reads one channel of its own: a depthwise convolution.
        var isDepthwise: Bool { groups == outChannels && filters.count == outChannels * kernelWidth * kernelHeight }

        /// Whether it is a 1 × 1 convolution over all channels that keeps the input's size.
        var isPointwise: Bool {
            kernelWidth == 1 && kernelHeight == 1 && stride == 1 && padding == 0 && trailingPadding == 0 && groups == 1
        }

        public func followed(by next: any NetworkOperation) -> (any NetworkOperation)? {
            if isDepthwise, let pointwise = next as? ConvolutionWeights, pointwise.isPointwise {
                return SeparableConvolutionWeights(depthwise: self, pointwise: pointwise)
            }
            guard !rectified else { return nil }
            var merged = self
            if let affine = next as? ChannelAffineWeights, !affine.rectified {
                let depth = filters.count / outChannels
                for o in 0..<outChannels {
                    for i in 0..<depth { merged.filters[o * depth + i] *= affine.scale[o] }
                    merged.biases[o] = biases[o] * affine.scale[o] + affine.shift[o]
                }
            } else if let ceiling = (next as? Activation)?.ceiling {
                merged.rectified = true
                merged.ceiling = ceiling
            } else {
                return nil
            }
            return merged
        }
    }
}

extension NetworkOperation where Self == Network.ConvolutionWeights {
    /// A convolution with these weights.
    public static func convolution(_ weights: Network.ConvolutionWeights) -> Self { weights }
}
