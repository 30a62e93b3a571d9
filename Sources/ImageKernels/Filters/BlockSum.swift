import ImageKernelsCL

/// One sum per histogram block: each row of a float image added up in order, giving a one-column
/// image (a chi-square distance per block when applied to ``HistogramDifference`` terms).
public struct BlockSum: Filter {
    public var name: String { "block sums" }

    public init() {}

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, of: .float32)
        return input.with(width: 1, height: input.height)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        let rows = input.height * input.planeCount
        try encoder.launch(
            Self.kernel,
            Arguments(
                src: .init(encoder.input), sums: .init(encoder.output), width: Int32(input.width),
                rows: Int32(rows)), over: [rows])
    }

    struct Arguments: KernelArguments {
        var src: KernelBuffer<Float>
        var sums: KernelMutableBuffer<Float>
        var width: Int32
        var rows: Int32
    }

    static let kernel = Kernel<Arguments>(
        "block_sum", in: KernelSource(name: "BlockSum", bytes: ImageKernelsCL.blockSum)
    ) { arguments, _ in
        let width = Int(arguments.width)
        CPUParallel.forEachRange(Int(arguments.rows)) { rows in
            let src = arguments.src.elements, sums = arguments.sums.elements
            for row in rows {
                var sum: Float = 0
                for i in 0..<width { sum += src[row * width + i] }
                sums[row] = sum
            }
        }
    }
}

extension Image {
    /// The sum of each row (histogram block).
    public func blockSums() -> Image {
        applying(BlockSum())
    }
}
