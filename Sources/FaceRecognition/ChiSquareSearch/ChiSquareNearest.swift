import FaceRecognitionCL
import ImageKernels

/// The fused, tiled search kernel as a filter: for every gallery face (inputs: the gallery's tiles and
/// block sums) and every active probe block, the chi-square distance to the block at the same
/// position (restricted) or to the nearest block of the face (`full`), or of its blocks within a
/// neighbourhood of the probe block's position (`full` with `neighbourhood`). Output: one row of
/// `probe.count` distances per face slot, or with `faceSums` one weighted sum per face slot.
struct ChiSquareNearest: Filter {
    let probe: SparseProbe
    let full: Bool
    /// With `full`: only the gallery blocks in the probe block's neighbourhood.
    var neighbourhood: BlockNeighbourhood? = nil
    let faceSums: Bool
    let form: HistogramDifference.Form
    let blocks: Int
    let bins: Int
    let slots: Int

    /// Faces per gallery tile: the kernel's LANES.
    static let lanes = 16

    var name: String { "χ² nearest (\(full ? "all blocks" : "same block"), \(form.rawValue))" }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 2, inputs.allSatisfy({ $0.elementType == .float32 }),
            inputs[0].elementCount >= slots * blocks * bins, inputs[1].elementCount >= slots * blocks
        else {
            throw .invalidInput(filter: name, reason: "needs the gallery's tiles and sums for \(slots) faces")
        }
        return ImageDescriptor(
            width: faceSums ? 1 : max(probe.count, 1), height: 1, batch: max(slots, 1), elementType: .float32)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        guard probe.count > 0, slots > 0 else { return }
        let asymmetric = form == .asymmetric, neighbourhood = full ? neighbourhood : nil
        let perFace = Self.kernel(
            full: full, probeCount: probe.count, asymmetric: asymmetric, faceSums: faceSums,
            neighbourhood: neighbourhood)
        let arguments = Arguments(
            tiles: .init(encoder.inputs[0]), sums: .init(encoder.inputs[1]), probeBlocks: probe.blocks,
            starts: probe.starts, binIndices: probe.binIndices, values: probe.values,
            inverses: probe.inverses, weights: probe.weights, distances: .init(encoder.output),
            probeCount: Int32(probe.count), blocks: Int32(blocks), bins: Int32(bins), slots: Int32(slots))
        if let rows = groupRows(encoder.schedule(for: perFace), on: encoder.device) {
            try encoder.launch(
                Self.kernel(
                    full: full, probeCount: probe.count, asymmetric: asymmetric, faceSums: faceSums,
                    neighbourhood: neighbourhood, cooperativeBins: bins),
                arguments, over: [slots, rows],
                schedule: KernelSchedule(workGroup: [Self.lanes, rows], cooperative: true))
        } else {
            try encoder.launch(perFace, arguments, over: [slots])
        }
    }

    /// The GPU shape's rows of work-items (strands of probe blocks) on this device, or nil for the CPU
    /// shape: where the schedule (already cut to the device's work-group size) asks for it with whole
    /// tiles across, and only if the staged gallery block and the strands' sums fit the local memory.
    private func groupRows(_ schedule: KernelSchedule, on device: Device) -> Int? {
        guard schedule.cooperative, schedule.workGroup.count > 1, schedule.workGroup[0] == Self.lanes else {
            return nil
        }
        let rows = schedule.workGroup[1]
        let localBytes =
            ((full ? (bins + 1) * Self.lanes : 0) + (faceSums ? rows * Self.lanes : 0)) * MemoryLayout<Float>.size
        return localBytes <= device.capabilities.localMemoryBytes ? rows : nil
    }

    struct Arguments: KernelArguments {
        var tiles: KernelBuffer<Float>
        var sums: KernelBuffer<Float>
        var probeBlocks: [Int32]
        var starts: [Int32]
        var binIndices: [Int32]
        var values: [Float]
        var inverses: [Float]
        var weights: [Float]
        var distances: KernelMutableBuffer<Float>
        var probeCount: Int32
        var blocks: Int32
        var bins: Int32
        var slots: Int32
    }

    static let source = KernelSource(name: "ChiSquareNearest", bytes: FaceRecognitionCL.chiSquareNearest)

    /// CPU-shaped on the CPU device and OpenCL CPUs; GPU-shaped on GPUs: 16 rows of 16 work-items, so a
    /// group's 256 work-items cover 64 probe blocks (an 8 × 8 grid) in one pass, 4 in each one's
    /// registers, beside a 16 KB staged block of 256 bins (a fraction of an SM's 100–228 KB).
    static let schedules = KernelSchedules(
        cpu: KernelSchedule(workGroup: [64]), openCLCPU: KernelSchedule(workGroup: [64]),
        openCLGPU: KernelSchedule(workGroup: [lanes, 16], cooperative: true))

    /// The kernel for one matcher's variant: with all blocks compared (`full`) or those of a
    /// neighbourhood, the asymmetric form, or one weighted sum per face; CPU-shaped (the probe's block
    /// count fixed at build time) or, with `cooperativeBins`, for the GPU shape's launches on blocks of
    /// that many bins (its work-group comes from the launch's schedule).
    static func kernel(
        full: Bool, probeCount: Int, asymmetric: Bool, faceSums: Bool,
        neighbourhood: BlockNeighbourhood? = nil, cooperativeBins: Int? = nil
    ) -> Kernel<Arguments> {
        var options: [String] = []
        if let cooperativeBins { options.append("-DBINS=\(cooperativeBins)") }
        if full { options.append(cooperativeBins == nil ? "-DFULL -DPROBE_COUNT=\(probeCount)" : "-DFULL") }
        if full, let neighbourhood { options.append(neighbourhood.kernelOptions) }
        if asymmetric { options.append("-DASYMMETRIC") }
        if faceSums { options.append("-DFACE_SUM") }
        return Kernel(
            "chisquare_nearest", in: source, options: options.joined(separator: " "), schedules: schedules,
            cpu: cpuTwin(
                full: full, asymmetric: asymmetric, faceSums: faceSums, neighbourhood: full ? neighbourhood : nil))
    }

    /// The CPU twin: one tile of 16 faces at a time, each half of the tile in the lanes of a SIMD8
    /// vector (16 lanes would not fit the registers of baseline x86-64 and spill), both halves in one
    /// pass over the probe block's bins. With all blocks compared, the gallery block is the outer loop, so
    /// each stays in L1 while every probe block is compared with it, and the next comes from memory meanwhile.
    private static func cpuTwin(
        full: Bool, asymmetric: Bool, faceSums: Bool,
        neighbourhood: BlockNeighbourhood?
    ) -> @Sendable (Arguments, KernelGrid) -> Void {
        { arguments, _ in
            let probeCount = Int(arguments.probeCount), blocks = Int(arguments.blocks), bins = Int(arguments.bins)
            let slots = Int(arguments.slots)
            let totals = arguments.probeTotals()
            CPUParallel.forEachRange((slots + lanes - 1) / lanes) { tiles in
                arguments.withProbe(totals: totals) { probe in
                    let gallery = arguments.tiles.elements, sums = arguments.sums.elements
                    let distances = arguments.distances.elements
                    // best[2 * jj + half]: the nearest distance so far, for the 8 faces of one half.
                    let best = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 2 * probeCount)
                    defer { best.deallocate() }
                    let blockBytes = bins * lanes * MemoryLayout<Float>.size
                    for tile in tiles {
                        let face = UnsafeRawPointer(gallery + tile * blocks * bins * lanes)
                        let blockTotals = UnsafeRawPointer(sums + tile * blocks * lanes)
                        /// Gallery block `block` of this tile (past its last, of the next tile).
                        func galleryBlock(_ block: Int) -> UnsafeRawPointer { face + block * blockBytes }
                        func compare(_ jj: Int, with block: Int) -> Halves {
                            let g = galleryBlock(block)
                            let total = blockTotals + block * lanes * MemoryLayout<Float>.size
                            return asymmetric
                                ? probe.asymmetricDistances(jj, g)
                                : probe.symmetricDistances(
                                    jj, g,
                                    totals: (
                                        total.loadUnaligned(as: SIMD8<Float>.self),
                                        total.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                                    ))
                        }
                        if full {
                            best.initialize(repeating: SIMD8(repeating: .infinity), count: 2 * probeCount)
                            for block in 0..<blocks {
                                // The next gallery block, a part a probe block: this one's bins are read in the probe's
                                // order, which the hardware's prefetcher cannot follow from memory.
                                let next =
                                    block + 1 < blocks || tile + 1 < tiles.upperBound ? galleryBlock(block + 1) : nil
                                for jj in 0..<probeCount {
                                    if let next {
                                        CPUCache.prefetch(part: jj, of: probeCount, of: next, byteCount: blockBytes)
                                    }
                                    guard neighbourhood?.contains(block, around: Int(probe.blocks[jj])) ?? true else {
                                        continue
                                    }
                                    let (d0, d1) = compare(jj, with: block)
                                    best[2 * jj].replace(with: d0, where: d0 .< best[2 * jj])
                                    best[2 * jj + 1].replace(with: d1, where: d1 .< best[2 * jj + 1])
                                }
                            }
                        } else {
                            for jj in 0..<probeCount {
                                (best[2 * jj], best[2 * jj + 1]) = compare(jj, with: Int(probe.blocks[jj]))
                            }
                        }
                        for lane in 0..<min(lanes, slots - tile * lanes) {
                            let slot = tile * lanes + lane, half = lane / 8
                            if faceSums {
                                var total: Float = 0
                                for jj in 0..<probeCount {
                                    total += probe.weights[jj] * max(best[2 * jj + half][lane % 8], 0)
                                }
                                distances[slot] = total
                            } else {
                                for jj in 0..<probeCount {
                                    distances[slot * probeCount + jj] = max(best[2 * jj + half][lane % 8], 0)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A tile's distances: faces 0–7 and 8–15.
    fileprivate typealias Halves = (SIMD8<Float>, SIMD8<Float>)

    /// The sparse probe as the CPU twin reads it.
    fileprivate struct Probe {
        let blocks: UnsafeBufferPointer<Int32>
        let starts: UnsafeBufferPointer<Int32>
        let binIndices: UnsafeBufferPointer<Int32>
        let values: UnsafeBufferPointer<Float>
        let inverses: UnsafeBufferPointer<Float>
        let weights: UnsafeBufferPointer<Float>
        /// Each block's total.
        let totals: UnsafeBufferPointer<Float>
        /// See ``ProbeTotals``.
        let combinesFractions: Bool

        /// Bin k's value, and where its column starts in a gallery block.
        @inline(__always)
        private func bin(_ k: Int) -> (value: Float, offset: Int) {
            (values[k], Int(binIndices[k]) * lanes * MemoryLayout<Float>.size)
        }

        /// Σ over all bins of (p−g)²/(p+g), computed as p's total + g's total − 4 Σ pg/(p+g) over the
        /// probe's nonzero bins (each term is p + g − 4pg/(p+g)), so zero probe bins cost nothing. The
        /// fractions are added four to a division where the probe's values allow it (``ProbeTotals``):
        /// on CPUs the division's throughput, not the arithmetic, bounds this loop.
        @inline(__always)
        func symmetricDistances(_ jj: Int, _ g: UnsafeRawPointer, totals galleryTotals: Halves) -> Halves {
            var sum0 = SIMD8<Float>(), sum1 = SIMD8<Float>()
            /// pg and p + g for bin k, both halves.
            @inline(__always) func fractions(_ k: Int) -> (Halves, Halves) {
                let (p, offset) = bin(k)
                let g0 = g.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                let g1 = g.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                return ((p * g0, p + g0), (p * g1, p + g1))
            }
            var k = Int(starts[jj])
            let end = Int(starts[jj + 1])
            if combinesFractions {
                while k + 4 <= end {
                    let (a0, a1) = fractions(k), (b0, b1) = fractions(k + 1)
                    let (c0, c1) = fractions(k + 2), (d0, d1) = fractions(k + 3)
                    sum0 += Self.sum(a0, b0, c0, d0)
                    sum1 += Self.sum(a1, b1, c1, d1)
                    k += 4
                }
            }
            while k < end {
                let ((n0, d0), (n1, d1)) = fractions(k)
                sum0 += n0 / d0
                sum1 += n1 / d1
                k += 1
            }
            let p = totals[jj]
            return ((p + galleryTotals.0) - 4 * sum0, (p + galleryTotals.1) - 4 * sum1)
        }

        /// Four fractions (numerator, denominator) added with one division.
        @inline(__always)
        private static func sum(_ a: Halves, _ b: Halves, _ c: Halves, _ d: Halves) -> SIMD8<Float> {
            let ab = a.1 * b.1, cd = c.1 * d.1
            let left = (a.0 * b.1).addingProduct(b.0, a.1), right = (c.0 * d.1).addingProduct(d.0, c.1)
            return (left * cd).addingProduct(right, ab) / (ab * cd)
        }

        /// Σ over the probe's nonzero bins of (p−g)²/p.
        @inline(__always)
        func asymmetricDistances(_ jj: Int, _ g: UnsafeRawPointer) -> Halves {
            var terms0 = SIMD8<Float>(), terms1 = SIMD8<Float>()
            for k in Int(starts[jj])..<Int(starts[jj + 1]) {
                let (p, offset) = bin(k), inverse = inverses[k]
                let d0 = p - g.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                let d1 = p - g.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
                terms0 += d0 * d0 * inverse
                terms1 += d1 * d1 * inverse
            }
            return (terms0, terms1)
        }
    }

    /// Each active probe block's total, and whether the twin may add its fractions four to a division:
    /// only where every probe value lies in [2⁻³⁰, 2³⁰], so that a product of four denominators (each at
    /// least its probe value) neither underflows nor, for gallery values of that range, overflows. Real
    /// descriptors' values are multiples of 1/pixels, at most 1.
    fileprivate struct ProbeTotals: Sendable {
        let sums: [Float]
        let combinesFractions: Bool
    }
}

extension ChiSquareNearest.Arguments {
    /// The probe's block totals, as the twin reads them.
    fileprivate func probeTotals() -> ChiSquareNearest.ProbeTotals {
        ChiSquareNearest.ProbeTotals(
            sums: (0..<Int(probeCount)).map { jj in values[Int(starts[jj])..<Int(starts[jj + 1])].reduce(0, +) },
            combinesFractions: values.allSatisfy { $0 >= 0x1p-30 && $0 <= 0x1p30 })
    }

    /// Runs `body` with the probe's arrays as the twin reads them.
    fileprivate func withProbe(totals: ChiSquareNearest.ProbeTotals, _ body: (ChiSquareNearest.Probe) -> Void) {
        probeBlocks.withUnsafeBufferPointer { blocks in
            starts.withUnsafeBufferPointer { starts in
                binIndices.withUnsafeBufferPointer { binIndices in
                    values.withUnsafeBufferPointer { values in
                        inverses.withUnsafeBufferPointer { inverses in
                            weights.withUnsafeBufferPointer { weights in
                                totals.sums.withUnsafeBufferPointer { sums in
                                    body(
                                        ChiSquareNearest.Probe(
                                            blocks: blocks, starts: starts, binIndices: binIndices, values: values,
                                            inverses: inverses, weights: weights, totals: sums,
                                            combinesFractions: totals.combinesFractions))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
