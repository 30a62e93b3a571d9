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
    /// vector (16 lanes would not fit the registers of baseline x86-64 and spill). Both halves are done
    /// while a gallery block is in the L1 cache; with all blocks compared, the gallery block is the
    /// outer loop, so each stays in L1 while every probe block is compared with it.
    private static func cpuTwin(
        full: Bool, asymmetric: Bool, faceSums: Bool,
        neighbourhood: BlockNeighbourhood?
    ) -> @Sendable (Arguments, KernelGrid) -> Void {
        { arguments, _ in
            let probeCount = Int(arguments.probeCount), blocks = Int(arguments.blocks), bins = Int(arguments.bins)
            let slots = Int(arguments.slots)
            CPUParallel.forEachRange((slots + lanes - 1) / lanes) { tiles in
                arguments.withProbe { probe in
                    let gallery = arguments.tiles.elements, sums = arguments.sums.elements
                    let distances = arguments.distances.elements
                    // best[half * probeCount + jj]: the nearest distance so far, for the 8 faces of one half.
                    let best = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 2 * probeCount)
                    defer { best.deallocate() }
                    for tile in tiles {
                        let face = UnsafeRawPointer(gallery + tile * blocks * bins * lanes)
                        let blockTotals = UnsafeRawPointer(sums + tile * blocks * lanes)
                        func distance(_ jj: Int, to block: Int, half: Int) -> SIMD8<Float> {
                            let g = face + (block * bins * lanes + half * 8) * 4
                            let total = blockTotals.loadUnaligned(
                                fromByteOffset: (block * lanes + half * 8) * 4, as: SIMD8<Float>.self)
                            return asymmetric
                                ? probe.asymmetricDistance(jj, g) : probe.symmetricDistance(jj, g, total: total)
                        }
                        if full {
                            best.initialize(repeating: SIMD8(repeating: .infinity), count: 2 * probeCount)
                            for block in 0..<blocks {
                                for half in 0..<2 {
                                    for jj in 0..<probeCount
                                    where neighbourhood?.contains(block, around: Int(probe.blocks[jj])) ?? true {
                                        best[half * probeCount + jj] = pointwiseMin(
                                            best[half * probeCount + jj],
                                            distance(jj, to: block, half: half))
                                    }
                                }
                            }
                        } else {
                            for jj in 0..<probeCount {
                                for half in 0..<2 {
                                    best[half * probeCount + jj] = distance(jj, to: Int(probe.blocks[jj]), half: half)
                                }
                            }
                        }
                        for lane in 0..<min(lanes, slots - tile * lanes) {
                            let slot = tile * lanes + lane, row = best + (lane / 8) * probeCount
                            if faceSums {
                                var total: Float = 0
                                for jj in 0..<probeCount { total += probe.weights[jj] * max(row[jj][lane % 8], 0) }
                                distances[slot] = total
                            } else {
                                for jj in 0..<probeCount {
                                    distances[slot * probeCount + jj] = max(row[jj][lane % 8], 0)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The sparse probe as the CPU twin reads it.
    fileprivate struct Probe {
        let blocks: UnsafeBufferPointer<Int32>
        let starts: UnsafeBufferPointer<Int32>
        let binIndices: UnsafeBufferPointer<Int32>
        let values: UnsafeBufferPointer<Float>
        let inverses: UnsafeBufferPointer<Float>
        let weights: UnsafeBufferPointer<Float>

        /// Σ over the probe's nonzero bins of (p−g)²/(p+g), plus the gallery block's uncovered mass.
        @inline(__always)
        func symmetricDistance(_ jj: Int, _ g: UnsafeRawPointer, total: SIMD8<Float>) -> SIMD8<Float> {
            var terms = SIMD8<Float>(), covered = SIMD8<Float>()
            for k in Int(starts[jj])..<Int(starts[jj + 1]) {
                let p = values[k]
                let v = g.loadUnaligned(fromByteOffset: Int(binIndices[k]) * lanes * 4, as: SIMD8<Float>.self)
                let d = p - v
                terms += d * d / (p + v)
                covered += v
            }
            return terms + (total - covered)
        }

        /// Σ over the probe's nonzero bins of (p−g)²/p.
        @inline(__always)
        func asymmetricDistance(_ jj: Int, _ g: UnsafeRawPointer) -> SIMD8<Float> {
            var terms = SIMD8<Float>()
            for k in Int(starts[jj])..<Int(starts[jj + 1]) {
                let v = g.loadUnaligned(fromByteOffset: Int(binIndices[k]) * lanes * 4, as: SIMD8<Float>.self)
                let d = values[k] - v
                terms += d * d * inverses[k]
            }
            return terms
        }
    }
}

extension ChiSquareNearest.Arguments {
    /// Runs `body` with the probe's arrays as the twin reads them.
    fileprivate func withProbe(_ body: (ChiSquareNearest.Probe) -> Void) {
        probeBlocks.withUnsafeBufferPointer { blocks in
            starts.withUnsafeBufferPointer { starts in
                binIndices.withUnsafeBufferPointer { binIndices in
                    values.withUnsafeBufferPointer { values in
                        inverses.withUnsafeBufferPointer { inverses in
                            weights.withUnsafeBufferPointer { weights in
                                body(
                                    ChiSquareNearest.Probe(
                                        blocks: blocks, starts: starts, binIndices: binIndices, values: values,
                                        inverses: inverses, weights: weights))
                            }
                        }
                    }
                }
            }
        }
    }
}
