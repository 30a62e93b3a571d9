import ImageKernels

/// A copy of a tensor's planes, each inside a border of zeros, for the CPU twins of the convolutions: their
/// windows, edges included, then read rows of eight as vectors, with no test of where each value lies.
struct ZeroBorderedPlanes: @unchecked Sendable {
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
        let copy = UnsafeMutablePointer<Float>.allocate(capacity: planes * planeSize)
        defer { copy.deallocate() }
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
