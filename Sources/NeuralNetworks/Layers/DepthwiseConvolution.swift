import ImageKernels

/// The CPU twin of `conv_depthwise`: output rows in parallel, eight outputs at a time in a vector register
/// wherever their windows lie inside the row, one at a time at the row's ends.
enum DepthwiseConvolution {
    static func run(_ a: Convolution.Direct) {
        let channels = Int(a.channels), height = Int(a.height), width = Int(a.width)
        let kh = Int(a.kernelHeight), kw = Int(a.kernelWidth), sy = Int(a.strideY), sx = Int(a.strideX)
        let py = Int(a.paddingY), px = Int(a.paddingX), outHeight = Int(a.outHeight), outWidth = Int(a.outWidth)
        let outChannels = Int(a.outChannels), perChannel = Int(a.groupOutChannels)
        let ceiling: Float? = a.relu != 0 ? a.ceiling : nil
        let (vectors, singles) = rowLayout(outWidth: outWidth, width: width, kernelWidth: kw, stride: sx, padding: px)
        CPUParallel.forEachRange(Int(a.batch) * outChannels * outHeight) { rows in
            let src = a.src.elements, weights = a.weights.elements, dst = a.dst.elements
            for row in rows {
                let plane = row / outHeight, oy = row % outHeight, oc = plane % outChannels
                let input = src + (plane / outChannels * channels + oc / perChannel) * height * width
                let filter = weights + oc * kh * kw, out = dst + row * outWidth, bias = a.bias.elements[oc]
                let top = oy * sy - py, taps = max(0, -top)..<max(0, min(kh, height - top))
                for ox in vectors {
                    var sum = SIMD8<Float>(repeating: bias)
                    for ky in taps {
                        let line = input + (top + ky) * width + ox * sx - px
                        for kx in 0..<kw {
                            sum.addProduct(SIMD8(repeating: filter[ky * kw + kx]), load(line + kx, stride: sx))
                        }
                    }
                    if let ceiling { sum = sum.rectified(ceiling: ceiling) }
                    UnsafeMutableRawPointer(out + ox).storeBytes(of: sum, as: SIMD8<Float>.self)
                }
                for ox in singles {
                    let left = ox * sx - px
                    var sum = bias
                    for ky in taps {
                        let line = input + (top + ky) * width + left
                        for kx in max(0, -left)..<max(0, min(kw, width - left)) {
                            sum += filter[ky * kw + kx] * line[kx]
                        }
                    }
                    out[ox] = ceiling.map { min(max(sum, 0), $0) } ?? sum
                }
            }
        }
    }

    /// How a row of `outWidth` outputs splits: the first outputs of vectors of eight whose reads stay inside
    /// the input row (a stride-2 load reads one value past the last it keeps), the last vector moved back
    /// to end where the inside ends; and the outputs no vector covers (the row's ends), one at a time.
    private static func rowLayout(
        outWidth: Int, width: Int, kernelWidth: Int, stride: Int,
        padding: Int
    ) -> (vectors: [Int], singles: [Int]) {
        func inside(_ ox: Int) -> Bool {
            ox * stride >= padding && ox + 8 <= outWidth
                && (ox + 7) * stride - padding + kernelWidth - 1 + (stride == 2 ? 1 : 0) < width
        }
        var vectors: [Int] = [], ox = (padding + stride - 1) / stride
        while inside(ox) {
            vectors.append(ox)
            ox += 8
        }
        if let last = vectors.last, let end = (last + 1..<ox).reversed().first(where: inside) { vectors.append(end) }
        let covered = Set(vectors.flatMap { $0..<$0 + 8 })
        return (vectors, (0..<outWidth).filter { !covered.contains($0) })
    }

    /// Eight values `stride` apart from `p`; a stride of 2 reads one value past the last it keeps.
    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>, stride: Int) -> SIMD8<Float> {
        switch stride {
        case 1: return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
        case 2: return UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self).evenHalf
        default:
            var values = SIMD8<Float>()
            for i in 0..<8 { values[i] = p[i * stride] }
            return values
        }
    }
}
