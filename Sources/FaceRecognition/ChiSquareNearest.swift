import ImageKernels
import Kernels

/// The fused, tiled search kernel as a filter: for every gallery face (inputs: the gallery's tiles and
/// block sums) and every active probe block, the chi-square distance to the block at the same
/// position (restricted) or to the nearest block of the face (`full`). Output: one row of
/// `probe.count` distances per face slot, or with `faceSums` one weighted sum per face slot.
struct ChiSquareNearest: Filter {
    let probe: SparseProbe
    let full: Bool
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
              inputs[0].elementCount >= slots * blocks * bins, inputs[1].elementCount >= slots * blocks else {
            throw .invalidInput(filter: name, reason: "needs the gallery's tiles and sums for \(slots) faces")
        }
        return ImageDescriptor(width: faceSums ? 1 : max(probe.count, 1), height: 1, batch: max(slots, 1), elementType: .float32)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        guard probe.count > 0, slots > 0 else { return }
        var options: [String] = []
        if full { options.append("-DFULL -DPROBE_COUNT=\(probe.count)") }
        if form == .asymmetric { options.append("-DASYMMETRIC") }
        if faceSums { options.append("-DFACE_SUM") }
        let kernel = Kernel(.chiSquareNearest, options: options.joined(separator: " "),
                            cpu: Self.cpuTwin(full: full, asymmetric: form == .asymmetric, faceSums: faceSums))
        try encoder.launch(kernel, [.image(encoder.inputs[0]), .image(encoder.inputs[1]), .ints(probe.blocks),
                                    .ints(probe.starts), .ints(probe.binIndices), .floats(probe.values),
                                    .floats(probe.inverses), .floats(probe.weights), .image(encoder.output), .int(probe.count),
                                    .int(blocks), .int(bins), .int(slots)],
                           globalSize: [slots], localSize: [64])
    }

    /// The CPU twin: one tile of 16 faces at a time, each half of the tile in the lanes of a SIMD8
    /// vector (16 lanes would not fit the registers of baseline x86-64 and spill). Both halves are done
    /// while a gallery block is in the L1 cache; with all blocks compared, the gallery block is the
    /// outer loop, so each stays in L1 while every probe block is compared with it.
    private static func cpuTwin(full: Bool, asymmetric: Bool, faceSums: Bool) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let probeCount = invocation.int(9), blocks = invocation.int(10), bins = invocation.int(11)
            let slots = invocation.int(12)
            CPUParallel.forEachRange((slots + lanes - 1) / lanes) { tiles in
                let probe = Probe(blocks: invocation.pointer(2, as: Int32.self), starts: invocation.pointer(3, as: Int32.self),
                                  binIndices: invocation.pointer(4, as: Int32.self), values: invocation.pointer(5, as: Float.self),
                                  inverses: invocation.pointer(6, as: Float.self))
                let gallery = invocation.pointer(0, as: Float.self), sums = invocation.pointer(1, as: Float.self)
                let weights = invocation.pointer(7, as: Float.self), distances = invocation.pointer(8, as: Float.self)
                // best[half * probeCount + jj]: the nearest distance so far, for the 8 faces of one half.
                let best = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 2 * probeCount)
                defer { best.deallocate() }
                for tile in tiles {
                    let face = UnsafeRawPointer(gallery + tile * blocks * bins * lanes)
                    let blockTotals = UnsafeRawPointer(sums + tile * blocks * lanes)
                    func distance(_ jj: Int, to block: Int, half: Int) -> SIMD8<Float> {
                        let g = face + (block * bins * lanes + half * 8) * 4
                        let total = blockTotals.loadUnaligned(fromByteOffset: (block * lanes + half * 8) * 4, as: SIMD8<Float>.self)
                        return asymmetric ? probe.asymmetricDistance(jj, g) : probe.symmetricDistance(jj, g, total: total)
                    }
                    if full {
                        best.initialize(repeating: SIMD8(repeating: .infinity), count: 2 * probeCount)
                        for block in 0..<blocks {
                            for half in 0..<2 {
                                for jj in 0..<probeCount {
                                    best[half * probeCount + jj] = pointwiseMin(best[half * probeCount + jj],
                                                                                distance(jj, to: block, half: half))
                                }
                            }
                        }
                    } else {
                        for jj in 0..<probeCount {
                            for half in 0..<2 { best[half * probeCount + jj] = distance(jj, to: Int(probe.blocks[jj]), half: half) }
                        }
                    }
                    for lane in 0..<min(lanes, slots - tile * lanes) {
                        let slot = tile * lanes + lane, row = best + (lane / 8) * probeCount
                        if faceSums {
                            var total: Float = 0
                            for jj in 0..<probeCount { total += weights[jj] * max(row[jj][lane % 8], 0) }
                            distances[slot] = total
                        } else {
                            for jj in 0..<probeCount { distances[slot * probeCount + jj] = max(row[jj][lane % 8], 0) }
                        }
                    }
                }
            }
        }
    }

    /// The sparse probe as the CPU twin reads it.
    private struct Probe {
        let blocks: UnsafeMutablePointer<Int32>
        let starts: UnsafeMutablePointer<Int32>
        let binIndices: UnsafeMutablePointer<Int32>
        let values: UnsafeMutablePointer<Float>
        let inverses: UnsafeMutablePointer<Float>

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
