/// A probe descriptor as the search kernels read it: only the blocks of weight above 0, and of each
/// only its nonzero bins, since chi-square against a zero probe bin needs no divide.
struct SparseProbe {
    /// Grid positions of the active blocks, in order.
    let blocks: [Int32]
    /// Their weights.
    let weights: [Float]
    /// Block jj's nonzero bins are entries starts[jj] ..< starts[jj + 1] of the arrays below.
    let starts: [Int32]
    let binIndices: [Int32]
    let values: [Float]
    /// 1/value, for the asymmetric form.
    let inverses: [Float]

    init(_ probe: FaceDescriptor, weights map: WeightMap) {
        let bins = probe.parameters.bins
        var blocks: [Int32] = [], weights: [Float] = [], starts: [Int32] = [0]
        var binIndices: [Int32] = [], values: [Float] = []
        for (block, weight) in map.activeBlocks {
            blocks.append(Int32(block))
            weights.append(weight)
            for (bin, value) in probe.block(block).enumerated() where value > 0 {
                binIndices.append(Int32(bin % bins))
                values.append(value)
            }
            starts.append(Int32(binIndices.count))
        }
        self.blocks = blocks
        self.weights = weights
        self.starts = starts
        self.binIndices = binIndices
        self.values = values
        self.inverses = values.map { 1 / $0 }
    }

    var count: Int { blocks.count }
}
