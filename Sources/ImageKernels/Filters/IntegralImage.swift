/// Integral images of `uint8` planes, as OpenCV lays them out: (W + 1) × (H + 1) `uint32` per plane, the
/// first row and column 0, entry (x, y) the sum of the pixels above and left of it (or of their squares).
/// Sums wrap modulo 2³² as OpenCV's do: the difference of four entries is exact for any window whose
/// true sum fits in 32 bits. Cascade detectors read window sums from them in constant time.
public struct IntegralImage: Filter {
    public let squared: Bool
    public var name: String { squared ? "squared integral" : "integral" }

    public init(squared: Bool = false) {
        self.squared = squared
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs, of: .uint8)
        return input.with(width: input.width + 1, height: input.height + 1).with(elementType: .uint32)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let input = encoder.input.descriptor
        let rows = Kernel(.integralRows, options: squared ? "-DSQUARED" : "",
                          cpu: squared ? Self.rowSums(squared: true) : Self.rowSums(squared: false))
        try encoder.launch(rows, [.image(encoder.input), .image(encoder.output), .int(input.width), .int(input.height)],
                           globalSize: [input.height + 1, input.planeCount], localSize: [64, 1])
        try encoder.launch(Self.columns, [.image(encoder.output), .int(input.width), .int(input.height)],
                           globalSize: [input.width + 1, input.planeCount], localSize: [64, 1])
    }

    private static func rowSums(squared: Bool) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let width = invocation.int(2), height = invocation.int(3)
            CPUParallel.forEachRange(invocation.globalSize[1] * (height + 1)) { rows in
                let src = invocation.pointer(0, as: UInt8.self), dst = invocation.pointer(1, as: UInt32.self)
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

    static let columns = Kernel(.integralColumns) { invocation in
        let width = invocation.int(1), height = invocation.int(2), stride = width + 1
        CPUParallel.forEachRange(invocation.globalSize[1]) { planes in
            let dst = invocation.pointer(0, as: UInt32.self)
            for plane in planes {
                let base = dst + plane * (height + 1) * stride
                for y in 1..<height + 1 {
                    let above = base + (y - 1) * stride, row = base + y * stride
                    for x in 0...width { row[x] &+= above[x] }
                }
            }
        }
    }
}

extension Image {
    /// The integral image (of squares with `squared`) of every `uint8` plane.
    public func integral(squared: Bool = false) -> Image {
        applying(IntegralImage(squared: squared))
    }
}
