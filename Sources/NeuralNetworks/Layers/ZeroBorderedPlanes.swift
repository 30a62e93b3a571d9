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
                fill(
                    destination + plane * planeSize, from: source + plane * sourceHeight * sourceWidth,
                    sourceHeight: sourceHeight, sourceWidth: sourceWidth, firstRow: -top, left: left, height: height,
                    width: width)
            }
        }
        return body(ZeroBorderedPlanes(base: copy, width: width, height: height))
    }

    /// Fills `height` × `width` values at `bordered` with rows `firstRow..<firstRow + height` of the
    /// `sourceHeight` × `sourceWidth` plane at `input`, moved `left` columns right, zeros where the plane does
    /// not go (rows outside it too).
    private static func fill(
        _ bordered: UnsafeMutablePointer<Float>, from input: UnsafePointer<Float>, sourceHeight: Int,
        sourceWidth: Int, firstRow: Int, left: Int, height: Int, width: Int
    ) {
        // Zeros only where the source does not go, each run between two rows one fill: a row's right margin and
        // the next row's left one (the rows above the first and the rows below the last in the first and last
        // runs). A short run before a row is one vector store, which the row's copy then overwrites past the run.
        let first = max(0, firstRow), rows = first..<max(first, min(sourceHeight, firstRow + height))
        var at = bordered, zeros = (rows.lowerBound - firstRow) * width + left
        for y in rows {
            if zeros <= 8, zeros + sourceWidth >= 8 {
                UnsafeMutableRawPointer(at).storeBytes(of: SIMD8<Float>(), as: SIMD8<Float>.self)
            } else {
                at.initialize(repeating: 0, count: zeros)
            }
            (at + zeros).initialize(from: input + y * sourceWidth, count: sourceWidth)
            at += zeros + sourceWidth
            zeros = width - sourceWidth
        }
        at.initialize(repeating: 0, count: bordered + height * width - at)
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
            width: rowLength(
                forWindowsOf: sourceWidth, kernelWidth: kernel.width, strideX: stride.x, paddingX: padding.x,
                outputWidth: outputs.width),
            body)
    }

    /// The values a bordered row holds so that the windows of eight columns of an output row read as vectors
    /// lie inside it: a stride-2 load reads one value past the last it keeps.
    static func rowLength(
        forWindowsOf sourceWidth: Int, kernelWidth: Int, strideX: Int, paddingX: Int, outputWidth: Int
    )
        -> Int
    {
        max(sourceWidth + paddingX, (outputWidth - 1) * strideX + kernelWidth + 1)
    }

    /// Room for a bordered copy of some rows of a tensor's planes, filled again for each band of rows a kernel
    /// works through (``fill(from:planes:sourceHeight:sourceWidth:firstRow:left:height:width:)``), so that the
    /// copy stays in the core's caches while the kernel reads it, and the tensor is read once, not copied
    /// whole first.
    struct Band {
        private let allocation: UnsafeMutablePointer<Float>
        private let capacity: Int

        /// Room for copies of up to `values` values, ``slack`` zeros before them and after.
        init(values: Int) {
            capacity = values
            allocation = .allocate(capacity: values + 2 * slack)
            allocation.initialize(repeating: 0, count: slack)
        }

        /// Rows `firstRow..<firstRow + height` of each of `planes` planes of `source` (`sourceHeight` ×
        /// `sourceWidth` each), moved `left` columns right inside `width` zeros a row; rows outside the source
        /// are zeros. The copy lasts until the next fill.
        func fill(
            from source: UnsafePointer<Float>, planes: Int, sourceHeight: Int, sourceWidth: Int, firstRow: Int,
            left: Int, height: Int, width: Int
        ) -> ZeroBorderedPlanes {
            assert(planes * height * width <= capacity, "a band larger than its room")
            let copy = allocation + slack
            for plane in 0..<planes {
                ZeroBorderedPlanes.fill(
                    copy + plane * height * width, from: source + plane * sourceHeight * sourceWidth,
                    sourceHeight: sourceHeight, sourceWidth: sourceWidth, firstRow: firstRow, left: left,
                    height: height, width: width)
            }
            (copy + planes * height * width).initialize(repeating: 0, count: slack)
            return ZeroBorderedPlanes(base: copy, width: width, height: height)
        }

        func deallocate() { allocation.deallocate() }
    }
}

extension ZeroBorderedPlanes {
    /// Eight output columns whose windows do not lie side by side in one row of the copy (they cross into the
    /// next rows of a narrow output, or into the next image), as the convolutions' twins read them: where
    /// they make at most three runs of columns that do and neighbours are 1 or 2 apart, a vector a run,
    /// each blended over the ones before from its first lane on; otherwise value by value. Lanes past the
    /// columns go on with the last run or repeat the last column; nothing stores them.
    struct CrossingColumns {
        /// Each lane's window from the first lane's.
        private let offsets: SIMD8<Int>
        /// Whether the lanes are read value by value; otherwise the runs after the first (0–2).
        private var byValue = false
        private var later = 0
        /// Each later run's distance from the first lane's window, where a vector puts its first lane in place,
        /// and the lanes from its first on.
        private var runOffsets = (0, 0)
        private var runLanes = (SIMDMask<SIMD8<Int32>>(), SIMDMask<SIMD8<Int32>>())

        /// The columns whose windows start at `origins` (lanes past the first `columns` repeating the last),
        /// neighbours in a row `stride` apart.
        init(origins: SIMD8<Int>, columns: Int, stride: Int) {
            offsets = origins &- origins[0]
            guard stride <= 2 else {
                byValue = true
                return
            }
            let starts = offsets &- SIMD8(0, 1, 2, 3, 4, 5, 6, 7) &* stride
            for i in 1..<columns where starts[i] != starts[i - 1] {
                let run = (starts[i], SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) .>= Int32(i))
                switch later {
                case 0: (runOffsets.0, runLanes.0) = run
                case 1: (runOffsets.1, runLanes.1) = run
                default:
                    byValue = true
                    return
                }
                later += 1
            }
        }

        /// The eight values at `first`, a place in the first column's window, and at the same place in the
        /// others' (`stride` as given to ``init(origins:columns:stride:)``).
        @inline(__always)
        func load(_ first: UnsafePointer<Float>, stride: Int) -> SIMD8<Float> {
            guard !byValue else {
                var values = SIMD8<Float>()
                for i in 0..<8 { values[i] = first[offsets[i]] }
                return values
            }
            var values = first.loadEight(stride: stride)
            if later > 0 { values.replace(with: (first + runOffsets.0).loadEight(stride: stride), where: runLanes.0) }
            if later > 1 { values.replace(with: (first + runOffsets.1).loadEight(stride: stride), where: runLanes.1) }
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

extension UnsafeMutablePointer<Float> {
    /// Stores the first `count` (at most eight) of `values` from here: a vector where all eight go.
    @inline(__always)
    func storeFirst(_ count: Int, of values: SIMD8<Float>) {
        if count == 8 {
            UnsafeMutableRawPointer(self).storeBytes(of: values, as: SIMD8<Float>.self)
        } else {
            for i in 0..<count { self[i] = values[i] }
        }
    }
}
