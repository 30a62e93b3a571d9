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
        let planes = input.planeCount
        let rows = Kernel(.integralRows, options: kind == .squaredSums ? "-DSQUARED" : "",
                          cpu: kind == .squaredSums ? Self.rowSums(squared: true) : Self.rowSums(squared: false))
        let rowSums = kind == .tiltedSums ? try encoder.temporaryImage(encoder.output.descriptor) : encoder.output
        try encoder.launch(rows, [.image(encoder.input), .image(rowSums), .int(input.width), .int(input.height)],
                           globalSize: [input.height + 1, planes], localSize: [64, 1])
        guard kind == .tiltedSums else {
            try encoder.launch(Self.columns, [.image(encoder.output), .int(input.width), .int(input.height)],
                               globalSize: [input.width + 1, planes], localSize: [64, 1])
            return
        }
        for kernel in [Self.antidiagonals, Self.diagonals] {
            try encoder.launch(kernel, [.image(rowSums), .image(encoder.output), .int(input.width), .int(input.height)],
                               globalSize: [input.width + input.height + 1, planes], localSize: [64, 1])
        }
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

    static let antidiagonals = Kernel(.integralTilted, options: "-DANTI", cpu: tiltedDiagonals(anti: true))
    static let diagonals = Kernel(.integralTilted, cpu: tiltedDiagonals(anti: false))

    /// The tilted pass's twin: one diagonal per task (see IntegralImage.cl for the sums).
    private static func tiltedDiagonals(anti: Bool) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let width = invocation.int(2), height = invocation.int(3), stride = width + 1
            let diagonals = width + height + 1
            CPUParallel.forEachRange(invocation.globalSize[1] * diagonals) { indices in
                let rows = invocation.pointer(0, as: UInt32.self), dst = invocation.pointer(1, as: UInt32.self)
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
