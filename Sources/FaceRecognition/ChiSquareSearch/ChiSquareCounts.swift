import FaceRecognitionCL
import ImageKernels

/// The restricted chi-square search as a filter, on faces in their stored counts form (inputs: the
/// gallery's ``StoredFaces`` bytes and block offsets): for every face slot and every active probe block,
/// the distance to the face's block at the same position, visiting only the face's nonzero bins. Output:
/// one row of `probe.count` distances per face slot, or with `faceSums` one weighted sum per face slot.
/// The same distances as ``ChiSquareNearest`` restricted, without unpacking the faces into dense tiles.
struct ChiSquareCounts: Filter {
    let probe: SparseProbe
    let faceSums: Bool
    let form: HistogramDifference.Form
    let parameters: DescriptorParameters
    let slots: Int
    /// The active probe blocks dense (probe.count × bins), their inverses (0 where a bin is 0) and totals.
    private let dense: [Float], inverses: [Float], totals: [Float]

    init(
        probe descriptor: FaceDescriptor, _ probe: SparseProbe, faceSums: Bool, form: HistogramDifference.Form,
        slots: Int
    ) {
        self.probe = probe
        self.faceSums = faceSums
        self.form = form
        parameters = descriptor.parameters
        self.slots = slots
        dense = probe.blocks.flatMap { descriptor.block(Int($0)) }
        inverses = dense.map { $0 > 0 ? 1 / $0 : 0 }
        totals = probe.blocks.map { descriptor.block(Int($0)).reduce(0, +) }
    }

    var name: String { "χ² on counts (\(form.rawValue))" }

    func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 2, inputs[0].elementType == .uint8, inputs[1].elementType == .uint32,
            inputs[1].elementCount >= slots * parameters.blockCount
        else {
            throw .invalidInput(
                filter: name, reason: "needs the gallery's stored bytes and block offsets for \(slots) faces")
        }
        return ImageDescriptor(
            width: faceSums ? 1 : max(probe.count, 1), height: 1, batch: max(slots, 1), elementType: .float32)
    }

    func encode(_ encoder: KernelEncoder) throws(RenderError) {
        guard probe.count > 0, slots > 0 else { return }
        guard let countBytes = FaceDescriptor.storedCountBytes(parameters) else {
            throw .invalidInput(filter: name, reason: "\(parameters) has no counts form")
        }
        let arguments = Arguments(
            counts: .init(encoder.inputs[0]), offsets: .init(encoder.inputs[1]), probeBlocks: probe.blocks,
            probe: dense, inverses: inverses, probeSums: totals,
            scales: parameters.blockPixelCounts.map { 1 / Float($0) }, weights: probe.weights,
            distances: .init(encoder.output), probeCount: Int32(probe.count), blocks: Int32(parameters.blockCount),
            bins: Int32(parameters.bins), countBytes: Int32(countBytes), slots: Int32(slots))
        try encoder.launch(Self.kernel(asymmetric: form == .asymmetric, faceSums: faceSums), arguments, over: [slots])
    }

    struct Arguments: KernelArguments {
        var counts: KernelBuffer<UInt8>
        var offsets: KernelBuffer<Int32>
        var probeBlocks: [Int32]
        var probe: [Float]
        var inverses: [Float]
        var probeSums: [Float]
        var scales: [Float]
        var weights: [Float]
        var distances: KernelMutableBuffer<Float>
        var probeCount: Int32
        var blocks: Int32
        var bins: Int32
        var countBytes: Int32
        var slots: Int32
    }

    static let source = KernelSource(name: "ChiSquareCounts", bytes: FaceRecognitionCL.chiSquareCounts)

    /// The kernel for the asymmetric form or not, with one weighted sum per face or a distance per block.
    static func kernel(asymmetric: Bool, faceSums: Bool) -> Kernel<Arguments> {
        let options = (asymmetric ? ["-DASYMMETRIC"] : []) + (faceSums ? ["-DFACE_SUM"] : [])
        return Kernel(
            "chisquare_counts", in: source, options: options.joined(separator: " "), schedules: .uniform([64]),
            cpu: cpuTwin(asymmetric: asymmetric, faceSums: faceSums))
    }

    /// The CPU twin: the kernel's loop, a range of slots a thread.
    private static func cpuTwin(asymmetric: Bool, faceSums: Bool) -> @Sendable (Arguments, KernelGrid) -> Void {
        { arguments, _ in
            let probeCount = Int(arguments.probeCount), blocks = Int(arguments.blocks), bins = Int(arguments.bins)
            let countBytes = Int(arguments.countBytes), bitmapBytes = (bins + 7) / 8
            CPUParallel.forEachRange(Int(arguments.slots)) { slots in
                let counts = arguments.counts.elements, offsets = arguments.offsets.elements
                let distances = arguments.distances.elements
                arguments.probe.withUnsafeBufferPointer { probe in
                    arguments.inverses.withUnsafeBufferPointer { inverses in
                        for slot in slots {
                            var sum: Float = 0
                            for jj in 0..<probeCount {
                                let block = Int(arguments.probeBlocks[jj]), at = Int(offsets[slot * blocks + block])
                                var d: Float = 0
                                if at >= 0 {
                                    let scale = arguments.scales[block], row = jj * bins
                                    var next = at + bitmapBytes, terms: Float = 0
                                    for word in 0..<(bitmapBytes + 7) / 8 {
                                        // 64 bins at a time: one unpredictable loop exit a word, not a byte.
                                        var bits = UnsafeRawPointer(counts + at + 8 * word).loadUnaligned(
                                            as: UInt64.self
                                        ).littleEndian
                                        if 8 * word + 8 > bitmapBytes {
                                            bits &= (1 << (8 * (bitmapBytes - 8 * word))) - 1
                                        }
                                        while bits != 0 {
                                            let bin = row + word * 64 + bits.trailingZeroBitCount
                                            bits &= bits - 1
                                            let count =
                                                1 + Int(counts[next])
                                                + (countBytes == 2 ? Int(counts[next + 1]) << 8 : 0)
                                            next += countBytes
                                            let g = Float(count) * scale
                                            if asymmetric {
                                                if inverses[bin] > 0 { terms += g * (g * inverses[bin] - 2) }
                                            } else {
                                                let q = probe[bin], e = q - g
                                                terms += e * e / (q + g) - q
                                            }
                                        }
                                    }
                                    d = max(arguments.probeSums[jj] + terms, 0)
                                }
                                if faceSums {
                                    sum += arguments.weights[jj] * d
                                } else {
                                    distances[slot * probeCount + jj] = d
                                }
                            }
                            if faceSums { distances[slot] = sum }
                        }
                    }
                }
            }
        }
    }
}
