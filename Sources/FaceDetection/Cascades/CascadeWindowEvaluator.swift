import ImageKernels

/// The CPU twins' window evaluation: the packed model's parts, the atlas's corner offsets and integral
/// images, read from a launch's arguments. Float operations run in the kernels' order (no contraction,
/// each stage's classifiers summed in order), so every shape on every device takes the same decisions.
struct WindowEvaluator {
    typealias Lanes = SIMD8<Int32>
    private let sums, squares, tilted: UnsafePointer<UInt32>
    private let offsets, stageStarts, nodeStarts, leafStarts, nodeFeatures, nodeLeft, nodeRight, subsets,
        featureTilted: UnsafePointer<Int32>
    private let stageThresholds, nodeThresholds, leaves, weights: UnsafePointer<Float>
    private let stride, windowWidth, windowHeight: Int
    let stageCount: Int
    private let lbp: Bool
    /// Corners of the inner window (1, 1, W − 2, H − 2) over which OpenCV normalises Haar features.
    private let inner: (Int, Int, Int, Int)

    /// An evaluator over the arguments of one launch; `offsets` holds the elements of its corner offsets.
    init(_ arguments: some CascadeArguments, offsets: UnsafePointer<Int32>, lbp: Bool) {
        sums = arguments.sums.elements
        squares = arguments.squares.elements
        tilted = arguments.tilted.elements
        let ints = arguments.ints.elements, floats = arguments.floats.elements
        func part(_ index: Int) -> Int { Int(arguments.layout[index]) }
        stageCount = part(0)
        stageStarts = ints + part(1)
        nodeStarts = ints + part(2)
        leafStarts = ints + part(3)
        nodeFeatures = ints + part(4)
        nodeLeft = ints + part(5)
        nodeRight = ints + part(6)
        subsets = ints + part(7)
        featureTilted = ints + part(8)
        stageThresholds = floats + part(9)
        nodeThresholds = floats + part(10)
        leaves = floats + part(11)
        weights = floats + part(12)
        self.offsets = offsets
        stride = Int(arguments.stride)
        windowWidth = Int(arguments.windowWidth)
        windowHeight = Int(arguments.windowHeight)
        self.lbp = lbp
        inner = (
            stride + 1, stride + windowWidth - 1, (windowHeight - 1) * stride + 1,
            (windowHeight - 1) * stride + windowWidth - 1
        )
    }

    // MARK: One window

    /// The window's outcome over `stages`: 0 rejected by stage 0 (or outright), 1 rejected by a later
    /// one, 2 through the cascade's last stage, 3 through `stages` with stages left (`cascade_window`).
    func outcome(origin: Int, stages: Range<Int>) -> UInt8 {
        var norm: Float = 1
        if !lbp {
            guard let windowNorm = normalisation(at: origin) else { return 0 }
            norm = windowNorm
        }
        for s in stages {
            var total: Float = 0
            for c in Int(stageStarts[s])..<Int(stageStarts[s + 1]) { total += leaf(c, origin: origin, norm: norm) }
            if total < stageThresholds[s] { return s == 0 ? 0 : 1 }
        }
        return stages.upperBound < stageCount ? 3 : 2
    }

    /// 1 / (area · standard deviation) over the inner window, or nil when OpenCV rejects the window
    /// (no spread, or a standard deviation below 10).
    @inline(__always)
    private func normalisation(at origin: Int) -> Float? {
        let (a, b, c, d) = inner
        let p = sums + origin, q = squares + origin
        let area = Int64(windowWidth - 2) * Int64(windowHeight - 2)
        let total = Int64(Int32(bitPattern: p[a] &- p[b] &- p[c] &+ p[d]))
        let squareSum = Int64(q[a] &- q[b] &- q[c] &+ q[d])
        let spread = area * squareSum - total * total
        guard spread > 0 else { return nil }
        let norm = 1 / Float(spread).squareRoot()
        return Float(area) * norm < 0.1 ? norm : nil
    }

    /// The leaf weak classifier `c` reaches (`cascade_leaf`).
    @inline(__always)
    private func leaf(_ c: Int, origin: Int, norm: Float) -> Float {
        var node = Int(nodeStarts[c]), child: Int32
        while true {
            let feature = Int(nodeFeatures[node])
            if lbp {
                let code = Int(lbpCode(origin: origin, feature: feature))
                child = subsets[8 * node + code >> 5] & (1 << Int32(code & 31)) != 0 ? nodeLeft[node] : nodeRight[node]
            } else {
                let value = haarValue(origin: origin, feature: feature) * norm
                child = value < nodeThresholds[node] ? nodeLeft[node] : nodeRight[node]
            }
            if child <= 0 { break }
            node = Int(nodeStarts[c]) + Int(child)
        }
        return leaves[Int(leafStarts[c]) - Int(child)]
    }

    @inline(__always)
    private func cornerSum(_ p: UnsafePointer<UInt32>, _ o: UnsafePointer<Int32>) -> Int32 {
        Int32(bitPattern: p[Int(o[0])] &- p[Int(o[1])] &- p[Int(o[2])] &+ p[Int(o[3])])
    }

    @inline(__always)
    private func haarValue(origin: Int, feature: Int) -> Float {
        let p = (featureTilted[feature] != 0 ? tilted : sums) + origin, o = offsets + 12 * feature,
            w = weights + 3 * feature
        var value = w[0] * Float(cornerSum(p, o)) + w[1] * Float(cornerSum(p, o + 4))
        if w[2] != 0 { value += w[2] * Float(cornerSum(p, o + 8)) }
        return value
    }

    /// The kernel's LBP code: the 16 corners of the 3 × 3 cells read once; a cell starting at corner i
    /// sums corners i − (i + 1) − (i + 4) + (i + 5).
    @inline(__always)
    private func lbpCode(origin: Int, feature: Int) -> Int32 {
        let p = sums + origin, o = offsets + 16 * feature
        let c = InlineArray<16, UInt32> { p[Int(o[$0])] }
        @inline(__always) func cell(_ i: Int) -> Int32 { Int32(bitPattern: c[i] &- c[i + 1] &- c[i + 4] &+ c[i + 5]) }
        let centre = cell(5)
        var code: Int32 = 0
        if cell(0) >= centre { code |= 128 }
        if cell(1) >= centre { code |= 64 }
        if cell(2) >= centre { code |= 32 }
        if cell(6) >= centre { code |= 16 }
        if cell(10) >= centre { code |= 8 }
        if cell(9) >= centre { code |= 4 }
        if cell(8) >= centre { code |= 2 }
        if cell(4) >= centre { code |= 1 }
        return code
    }

    // MARK: Eight neighbouring windows (stump cascades)

    /// The outcomes of windows wx ..< wx + 8 of row wy: the lanes run the stages together until all are
    /// rejected (finishing the last few alive one by one measured no faster).
    func evaluateEight(origin: Int, step: Int) -> SIMD8<UInt8> {
        let laneBits = Lanes(1, 2, 4, 8, 16, 32, 64, 128)
        var norm = SIMD8<Float>(repeating: 1)
        var outcome = Lanes(repeating: 2)
        var alive = SIMDMask<Lanes>(repeating: true)
        if !lbp {
            (norm, alive) = normalisations(at: origin, step: step)
            outcome.replace(with: 0, where: .!alive)
        }
        for s in 0..<stageCount {
            guard any(alive) else { break }
            var total = SIMD8<Float>(repeating: 0)
            for c in Int(stageStarts[s])..<Int(stageStarts[s + 1]) {
                let node = Int(nodeStarts[c]), feature = Int(nodeFeatures[node])
                let goesLeft: SIMDMask<Lanes>
                if lbp {
                    // Subset bits gathered lane by lane into an integer, then spread over the lanes at once
                    // (writing mask lanes one by one stalls on store forwarding).
                    let codes = lbpCodes(origin: origin, feature: feature, step: step)
                    var bits: Int32 = 0
                    for lane in 0..<8 {
                        let code = Int(codes[lane])
                        if subsets[8 * node + code >> 5] & (1 << Int32(code & 31)) != 0 { bits |= 1 << Int32(lane) }
                    }
                    goesLeft = (Lanes(repeating: bits) & laneBits .== laneBits)
                } else {
                    goesLeft = (haarValues(origin: origin, feature: feature, step: step) * norm .< nodeThresholds[node])
                }
                let leafStart = Int(leafStarts[c])
                total += SIMD8(repeating: leaves[leafStart - Int(nodeRight[node])])
                    .replacing(with: leaves[leafStart - Int(nodeLeft[node])], where: goesLeft)
            }
            let failed = total .< stageThresholds[s] .& alive
            outcome.replace(with: s == 0 ? 0 : 1, where: failed)
            alive = (alive .& .!failed)
        }
        return SIMD8<UInt8>(truncatingIfNeeded: outcome)
    }

    /// `normalisation(at:)` for the eight windows: the same integer and float operations, lane by lane.
    @inline(__always)
    private func normalisations(at origin: Int, step: Int) -> (SIMD8<Float>, SIMDMask<Lanes>) {
        let (a, b, c, d) = inner
        let p = sums + origin, q = squares + origin
        let sum: SIMD8<UInt32> = load(p, a, step) &- load(p, b, step) &- load(p, c, step) &+ load(p, d, step)
        let squares: SIMD8<UInt32> = load(q, a, step) &- load(q, b, step) &- load(q, c, step) &+ load(q, d, step)
        let total = SIMD8<Int64>(truncatingIfNeeded: Lanes(truncatingIfNeeded: sum))
        let squareSum = SIMD8<Int64>(truncatingIfNeeded: squares)
        let area = Int64(windowWidth - 2) * Int64(windowHeight - 2)
        let spread: SIMD8<Int64> = SIMD8(repeating: area) &* squareSum &- total &* total
        let spreadValue = SIMD8<Float>(spread)
        let norm: SIMD8<Float> = 1 / spreadValue.squareRoot()
        let positive: SIMDMask<Lanes> = spreadValue .> 0  // as spread > 0: the conversion keeps signs
        let deviated: SIMDMask<Lanes> = Float(area) * norm .< 0.1
        return (norm, positive .& deviated)
    }

    /// Integral entries at `index` for the eight windows (`step` apart), read without passing the
    /// last window's entry.
    @inline(__always)
    private func load(_ p: UnsafePointer<UInt32>, _ index: Int, _ step: Int) -> SIMD8<UInt32> {
        let raw = UnsafeRawPointer(p + index)
        if step == 1 { return raw.loadUnaligned(as: SIMD8<UInt32>.self) }
        let low = raw.loadUnaligned(as: SIMD8<UInt32>.self),
            high = raw.loadUnaligned(fromByteOffset: 28, as: SIMD8<UInt32>.self)
        return SIMD8(lowHalf: low.evenHalf, highHalf: high.oddHalf)
    }

    @inline(__always)
    private func cornerSums(_ p: UnsafePointer<UInt32>, _ o: UnsafePointer<Int32>, _ step: Int) -> SIMD8<Float> {
        let sum =
            load(p, Int(o[0]), step) &- load(p, Int(o[1]), step) &- load(p, Int(o[2]), step) &+ load(p, Int(o[3]), step)
        return SIMD8<Float>(Lanes(truncatingIfNeeded: sum))
    }

    @inline(__always)
    private func haarValues(origin: Int, feature: Int, step: Int) -> SIMD8<Float> {
        let p = (featureTilted[feature] != 0 ? tilted : sums) + origin, o = offsets + 12 * feature,
            w = weights + 3 * feature
        var value = w[0] * cornerSums(p, o, step) + w[1] * cornerSums(p, o + 4, step)
        if w[2] != 0 { value += w[2] * cornerSums(p, o + 8, step) }
        return value
    }

    @inline(__always)
    private func lbpCodes(origin: Int, feature: Int, step: Int) -> Lanes {
        let p = sums + origin, o = offsets + 16 * feature
        let c = InlineArray<16, SIMD8<UInt32>> { load(p, Int(o[$0]), step) }
        @inline(__always) func cell(_ i: Int) -> Lanes {
            Lanes(truncatingIfNeeded: c[i] &- c[i + 1] &- c[i + 4] &+ c[i + 5])
        }
        let centre = cell(5), zero = Lanes(repeating: 0)
        var code = zero.replacing(with: 128, where: cell(0) .>= centre)
        code |= zero.replacing(with: 64, where: cell(1) .>= centre)
        code |= zero.replacing(with: 32, where: cell(2) .>= centre)
        code |= zero.replacing(with: 16, where: cell(6) .>= centre)
        code |= zero.replacing(with: 8, where: cell(10) .>= centre)
        code |= zero.replacing(with: 4, where: cell(9) .>= centre)
        code |= zero.replacing(with: 2, where: cell(8) .>= centre)
        code |= zero.replacing(with: 1, where: cell(4) .>= centre)
        return code
    }
}
