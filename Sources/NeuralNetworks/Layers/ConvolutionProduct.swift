import ImageKernels

/// The CPU twin of `conv_gemm`: filters × columns in tiles of 4 filters × 8 columns, the columns of a
/// tile packed contiguously first so that the inner loop streams through memory.
enum ConvolutionProduct {
    static func run(_ arguments: Convolution.Product) {
        let groupOut = Int(arguments.groupOutChannels), depth = Int(arguments.groupDepth), columns = Int(arguments.columns)
        let spatial = Int(arguments.spatial), outChannels = Int(arguments.outChannels), relu = arguments.relu != 0
        let tiles = (columns + 7) / 8, groups = outChannels / groupOut
        CPUParallel.forEachRange(tiles * groups) { range in
            let weights = arguments.weights.elements, cols = arguments.cols.elements
            let bias = arguments.bias.elements, dst = arguments.dst.elements
            let panel = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: depth)
            defer { panel.deallocate() }
            for item in range {
                let group = item / tiles, n = item % tiles * 8, width = min(8, columns - n)
                let source = cols + group * depth * columns + n
                for k in 0..<depth {
                    var v = SIMD8<Float>(repeating: 0)
                    for i in 0..<width { v[i] = source[k * columns + i] }
                    panel[k] = v
                }
                var m = 0
                while m < groupOut {
                    let rows = min(4, groupOut - m), oc = group * groupOut + m
                    let a0 = weights + oc * depth
                    let a1 = weights + (oc + min(1, rows - 1)) * depth
                    let a2 = weights + (oc + min(2, rows - 1)) * depth
                    let a3 = weights + (oc + min(3, rows - 1)) * depth
                    var acc0 = SIMD8<Float>(), acc1 = SIMD8<Float>(), acc2 = SIMD8<Float>(), acc3 = SIMD8<Float>()
                    for k in 0..<depth {
                        let v = panel[k]
                        acc0 += a0[k] * v
                        acc1 += a1[k] * v
                        acc2 += a2[k] * v
                        acc3 += a3[k] * v
                    }
                    for (row, acc) in [acc0, acc1, acc2, acc3].prefix(rows).enumerated() {
                        var values = acc + bias[oc + row]
                        if relu { values = values.replacing(with: 0, where: values .< 0) }
                        for i in 0..<width {
                            let column = n + i, b = column / spatial, p = column % spatial
                            dst[(b * outChannels + oc + row) * spatial + p] = values[i]
                        }
                    }
                    m += rows
                }
            }
        }
    }
}
