import ImageKernels

/// The CPU twin of `conv_depthwise`: planes in parallel, read from a zero-bordered copy
/// (``ZeroBorderedPlanes``) so that every output, the plane's edges included, is computed in vector registers:
/// sixteen outputs of four rows at a time, or, where rows are at most eight outputs wide (EfficientNet-Lite's
/// 7 × 7 layers, BlazeFace's 6 × 6), eight outputs of eight rows, in eight independent sums (fewer chains of
/// fused multiply-adds would wait on themselves).
/// Taps are summed in the kernel's order, the border's zeros adding nothing.
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
        ZeroBorderedPlanes.withCopy(
            of: a.src.elements, planes: Int(a.batch) * channels, sourceHeight: height, sourceWidth: width, top: py,
            left: px, height: paddedHeight, width: paddedWidth
        ) { padded in
            CPUParallel.forEachRange(Int(a.batch) * outChannels) { planes in
                let weights = a.weights.elements, dst = a.dst.elements, rowVectors = vectorOutputs / 8
                let rows = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: blockRows * rowVectors)
                defer { rows.deallocate() }
                // The stride picked once, outside the loops: a choice at every load kept the sums out of
                // registers.
                @inline(__always) func sum(_ load: (UnsafePointer<Float>) -> SIMD8<Float>) {
                    for plane in planes {
                        let oc = plane % outChannels
                        let input = padded.base + (plane / outChannels * channels + oc / perChannel) * padded.planeSize
                        let filter = weights + oc * kh * kw, bias = SIMD8<Float>(repeating: a.bias.elements[oc])
                        for oy in stride(from: 0, to: outHeight, by: blockRows) {
                            for ox in stride(from: 0, to: vectorOutputs, by: 8 * vectorsARow) {
                                // Where each vector's window starts: its row (the last repeated where fewer
                                // are left) and its columns.
                                func start(_ vector: Int) -> UnsafePointer<Float> {
                                    let row = min(oy + vector / vectorsARow, outHeight - 1)
                                    return input + row * sy * paddedWidth + (ox + vector % vectorsARow * 8) * sx
                                }
                                let (p0, p1, p2, p3) = (start(0), start(1), start(2), start(3))
                                let (p4, p5, p6, p7) = (start(4), start(5), start(6), start(7))
                                var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias,
                                    s7 = bias
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
                                func store(_ vector: Int, _ sums: SIMD8<Float>) {
                                    rows[vector / vectorsARow * rowVectors + ox / 8 + vector % vectorsARow] =
                                        ceiling.map { sums.rectified(ceiling: $0) } ?? sums
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
                            for row in 0..<min(blockRows, outHeight - oy) {
                                UnsafeMutableRawPointer(dst + (plane * outHeight + oy + row) * outWidth).copyMemory(
                                    from: rows + row * rowVectors, byteCount: outWidth * MemoryLayout<Float>.stride)
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
    }
}
