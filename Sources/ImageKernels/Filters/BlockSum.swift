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
        try encoder.launchPerElement(Self.kernel, [.image(encoder.input), .image(encoder.output), .int(input.width),
                                                   .int(rows)], count: rows)
    }

    static let kernel = Kernel(.blockSum) { invocation in
        let width = invocation.int(2)
        CPUParallel.forEachRange(invocation.int(3)) { rows in
            let src = invocation.pointer(0, as: Float.self), sums = invocation.pointer(1, as: Float.self)
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
