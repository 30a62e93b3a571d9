import ImageKernels

/// The CPU twin of `conv_depthwise`: planes in parallel, each copied into a zero-bordered plane of its
/// worker's own (``BorderedPlane``, small enough to stay in the core's first-level cache) so that every
/// output, the plane's edges included, is computed in vector registers: sixteen outputs of four rows at a time,
/// or, where rows are at most eight outputs wide (EfficientNet-Lite's 7 × 7 layers, BlazeFace's 6 × 6), eight
/// outputs of eight rows, in eight independent sums (fewer chains of fused multiply-adds would wait on
/// themselves). Taps are summed in the kernel's order, the border's zeros adding nothing.
enum DepthwiseConvolution {
    static func run(_ a: Convolution.Direct) {
        let channels = Int(a.channels), height = Int(a.height), width = Int(a.width)
        let kh = Int(a.kernelHeight), kw = Int(a.kernelWidth), sy = Int(a.strideY), sx = Int(a.strideX)
        let py = Int(a.paddingY), px = Int(a.paddingX), outHeight = Int(a.outHeight), outWidth = Int(a.outWidth)
        let outChannels = Int(a.outChannels), perChannel = Int(a.groupOutChannels)
        let ceiling: Float? = a.relu != 0 ? a.ceiling : nil
        // A block of outputs: eight vectors of eight, side by side in rows of `vectorsARow`.
        let vectorsARow = outWidth <= 8 ? 1 : 2, blockRows = 8 / vectorsARow
        // The bordered plane: every read of a row's outputs, rounded up to whole vectors, lies inside it (a
        // strided load reads up to sx × 8 values from where it starts).
        let vectorOutputs = (outWidth + 8 * vectorsARow - 1) / (8 * vectorsARow) * 8 * vectorsARow
        let paddedWidth = max(width + px, (vectorOutputs - 1) * sx + kw) + 8 * sx
        let paddedHeight = max(height + py, (outHeight - 1) * sy + kh)
        nonisolated(unsafe) let (src, dst, weights) = (a.src.elements, a.dst.elements, a.weights.elements)
        CPUParallel.forEachRange(Int(a.batch) * outChannels) { planes in
            let bordered = BorderedPlane(width: paddedWidth, height: paddedHeight, top: py, left: px)
            defer { bordered.deallocate() }
            // The stride picked once, outside the loops: a choice at every load kept the sums out of registers.
            @inline(__always) func sum(_ load: (UnsafePointer<Float>) -> SIMD8<Float>) {
                for plane in planes {
                    let oc = plane % outChannels
                    let input = bordered.fill(
                        from: src + (plane / outChannels * channels + oc / perChannel) * height * width,
                        height: height, width: width)
                    let output = dst + plane * outHeight * outWidth
                    let filter = weights + oc * kh * kw, bias = SIMD8<Float>(repeating: a.bias.elements[oc])
                    for oy in stride(from: 0, to: outHeight, by: blockRows) {
                        for ox in stride(from: 0, to: vectorOutputs, by: 8 * vectorsARow) {
                            // Where each vector's window starts: its row (the last repeated where fewer are
                            // left) and its columns.
                            func start(_ vector: Int) -> UnsafePointer<Float> {
                                let row = min(oy + vector / vectorsARow, outHeight - 1)
                                return input + row * sy * paddedWidth + (ox + vector % vectorsARow * 8) * sx
                            }
                            let (p0, p1, p2, p3) = (start(0), start(1), start(2), start(3))
                            let (p4, p5, p6, p7) = (start(4), start(5), start(6), start(7))
                            var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias, s7 = bias
                            for ky in 0..<kh {
                                for kx in 0..<kw {
                                    let weight = SIMD8<Float>(repeating: filter[ky * kw + kx])
                                    let tap = ky * paddedWidth + kx
                                    s0.addProduct(weight, load(p0 + tap))
                                    s1.addProduct(weight, load(p1 + tap))
                                    s2.addProduct(weight, load(p2 + tap))
                                    s3.addProduct(weight, load(p3 + tap))
                                    s4.addProduct(weight, load(p4 + tap))
                                    s5.addProduct(weight, load(p5 + tap))
                                    s6.addProduct(weight, load(p6 + tap))
                                    s7.addProduct(weight, load(p7 + tap))
                                }
                            }
                            @inline(__always) func store(_ vector: Int, _ sums: SIMD8<Float>) {
                                let row = oy + vector / vectorsARow, x = ox + vector % vectorsARow * 8
                                guard row < outHeight, x < outWidth else { return }
                                let values = ceiling.map { sums.rectified(ceiling: $0) } ?? sums
                                (output + row * outWidth + x).storeFirst(min(8, outWidth - x), of: values)
                            }
                            store(0, s0)
                            store(1, s1)
                            store(2, s2)
                            store(3, s3)
                            store(4, s4)
                            store(5, s5)
                            store(6, s6)
                            store(7, s7)
                        }
                    }
                }
            }
            switch sx {
            case 1: sum { $0.loadEight(stride: 1) }
            case 2: sum { $0.loadEight(stride: 2) }
            default: sum { $0.loadEight(stride: sx) }
            }
        }
    }

    /// A worker's plane inside a border of zeros, filled again for each plane it convolves: the border is
    /// zeroed once, since every plane of a tensor fills the same place inside it, and rows are copied as
    /// vectors, with no call a row (a row of EfficientNet's 14 × 14 planes is 56 bytes).
    private struct BorderedPlane {
        private let allocation: UnsafeMutablePointer<Float>
        private let base: UnsafeMutablePointer<Float>
        let width: Int
        private let top: Int, left: Int

        init(width: Int, height: Int, top: Int, left: Int) {
            let count = width * height + 2 * ZeroBorderedPlanes.slack
            allocation = .allocate(capacity: count)
            allocation.initialize(repeating: 0, count: count)
            base = allocation + ZeroBorderedPlanes.slack
            (self.width, self.top, self.left) = (width, top, left)
        }

        /// The plane `height` × `width` at `source`, bordered; its first row and column where the zeros before
        /// them end.
        @inline(__always)
        func fill(from source: UnsafePointer<Float>, height: Int, width sourceWidth: Int) -> UnsafePointer<Float> {
            for y in 0..<height {
                let from = source + y * sourceWidth, to = base + (top + y) * width + left
                var x = 0
                while x + 8 <= sourceWidth {
                    (to + x).storeFirst(8, of: UnsafeRawPointer(from + x).loadUnaligned(as: SIMD8<Float>.self))
                    x += 8
                }
                while x < sourceWidth {
                    to[x] = from[x]
                    x += 1
                }
            }
            return UnsafePointer(base)
        }

        func deallocate() { allocation.deallocate() }
    }
}
