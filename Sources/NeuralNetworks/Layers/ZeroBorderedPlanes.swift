import ImageKernels

/// A copy of a tensor's planes, each inside a border of zeros, for the CPU twins of the convolutions: their
/// windows, edges included, then read rows of eight as vectors, with no test of where each value lies. A
/// vector may start up to ``slack`` values before the first plane and end as far past the last (zeros).
struct ZeroBorderedPlanes: @unchecked Sendable {
    /// Zeros kept before the first plane and after the last.
    static let slack = 16

    /// The first bordered plane; plane `i` starts `i · planeSize` values on.
    let base: UnsafePointer<Float>
    /// Values a bordered row, rows a bordered plane.
    let width: Int, height: Int
    var planeSize: Int { width * height }

    /// Runs `body` on a copy of `planes` planes of `source` (`sourceHeight` × `sourceWidth` each), each
    /// moved `top` rows down and `left` columns right inside `height` × `width` zeros; the copy lives as
    /// long as `body` runs.
    static func withCopy<Result>(
        of source: UnsafePointer<Float>, planes: Int, sourceHeight: Int, sourceWidth: Int, top: Int, left: Int,
        height: Int, width: Int, _ body: (ZeroBorderedPlanes) -> Result
    ) -> Result {
        let planeSize = height * width
        let allocation = UnsafeMutablePointer<Float>.allocate(capacity: planes * planeSize + 2 * slack)
        defer { allocation.deallocate() }
        let copy = allocation + slack
        allocation.initialize(repeating: 0, count: slack)
        (copy + planes * planeSize).initialize(repeating: 0, count: slack)
        nonisolated(unsafe) let (source, destination) = (source, copy)
        CPUParallel.forEachRange(planes) { range in
            for plane in range {
                let bordered = destination + plane * planeSize, input = source + plane * sourceHeight * sourceWidth
                // Zeros only where the source does not go: the rows above and below it, and each row's margins.
                bordered.initialize(repeating: 0, count: top * width)
                for y in 0..<sourceHeight {
                    let row = bordered + (y + top) * width
                    row.initialize(repeating: 0, count: left)
                    (row + left).initialize(from: input + y * sourceWidth, count: sourceWidth)
                    (row + left + sourceWidth).initialize(repeating: 0, count: width - left - sourceWidth)
                }
                (bordered + (top + sourceHeight) * width).initialize(
                    repeating: 0, count: (height - top - sourceHeight) * width)
            }
        }
        return body(ZeroBorderedPlanes(base: copy, width: width, height: height))
    }
}

extension ZeroBorderedPlanes {
    /// ``withCopy(of:planes:sourceHeight:sourceWidth:top:left:height:width:_:)`` for a convolution's windows
    /// (`kernel`, `stride` and leading `padding` as (y, x), giving `outputs` rows and columns), large enough
    /// that the windows of eight columns of an output row read as vectors lie inside it: a stride-2 load
    /// reads one value past the last it keeps.
    static func withCopy<Result>(
        forWindowsOf source: UnsafePointer<Float>, planes: Int, sourceHeight: Int, sourceWidth: Int,
        kernel: (height: Int, width: Int), stride: (y: Int, x: Int), padding: (y: Int, x: Int),
        outputs: (height: Int, width: Int), _ body: (ZeroBorderedPlanes) -> Result
    ) -> Result {
        withCopy(
            of: source, planes: planes, sourceHeight: sourceHeight, sourceWidth: sourceWidth, top: padding.y,
            left: padding.x, height: max(sourceHeight + padding.y, (outputs.height - 1) * stride.y + kernel.height),
            width: max(sourceWidth + padding.x, (outputs.width - 1) * stride.x + kernel.width + 1), body)
    }
}

extension ZeroBorderedPlanes {
    /// Eight output columns that cross from one row into the next (outputs narrower than they are wide, or
    /// the end of an image), read as at most three runs of columns that lie side by side: a vector from the
    /// first column's window, and one from each later run's, blended over it from that run's first lane on.
    /// Lanes past the columns go on with the last run (values ``slack`` keeps in bounds).
    struct ColumnRuns {
        private var later = 0
        /// Each later run's distance from the first column's window, where a vector puts its first lane in
        /// place.
        private var offsets = (0, 0)
        private var lanes = (SIMDMask<SIMD8<Int32>>(), SIMDMask<SIMD8<Int32>>())

        /// The runs of columns whose windows start at `origins` (the first `columns` lanes; neighbours in a
        /// row `stride` apart, 1 or 2); nil for more than three runs or a larger stride.
        init?(origins: SIMD8<Int>, columns: Int, stride: Int) {
            guard stride <= 2 else { return nil }
            let starts = origins &- SIMD8(0, 1, 2, 3, 4, 5, 6, 7) &* stride
            for i in 1..<columns where starts[i] != starts[i - 1] {
                let run = (starts[i] - starts[0], SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) .>= Int32(i))
                switch later {
                case 0: (offsets.0, lanes.0) = run
                case 1: (offsets.1, lanes.1) = run
                default: return nil
                }
                later += 1
            }
        }

        /// The eight values at `first`, a place in the first column's window, and at the same place in the
        /// others'.
        @inline(__always)
        func load(_ first: UnsafePointer<Float>, stride: Int) -> SIMD8<Float> {
            var values = first.loadEight(stride: stride)
            if later > 0 { values.replace(with: (first + offsets.0).loadEight(stride: stride), where: lanes.0) }
            if later > 1 { values.replace(with: (first + offsets.1).loadEight(stride: stride), where: lanes.1) }
            return values
        }
    }
}

extension UnsafePointer<Float> {
    /// Eight values `stride` apart from here; a stride of 2 reads one value past the last it keeps.
    @inline(__always)
    func loadEight(stride: Int) -> SIMD8<Float> {
        switch stride {
        case 1: return UnsafeRawPointer(self).loadUnaligned(as: SIMD8<Float>.self)
        case 2: return UnsafeRawPointer(self).loadUnaligned(as: SIMD16<Float>.self).evenHalf
        default:
            var values = SIMD8<Float>()
            for i in 0..<8 { values[i] = self[i * stride] }
            return values
        }
    }
}
