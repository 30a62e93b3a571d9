import ImageKernels

/// The CPU twin of `conv_depthwise`: planes in parallel, read from a zero-bordered copy
/// (``ZeroBorderedPlanes``) so that every output, the plane's edges included, is computed in vector registers:
/// sixteen outputs of four rows at a time, in eight independent sums (fewer chains of fused multiply-adds
/// would wait on themselves).
/// Taps are summed in the kernel's order, the border's zeros adding nothing.
enum DepthwiseConvolution {
    static func run(_ a: Convolution.Direct) {
        let channels = Int(a.channels), height = Int(a.height), width = Int(a.width)
        let kh = Int(a.kernelHeight), kw = Int(a.kernelWidth), sy = Int(a.strideY), sx = Int(a.strideX)
        let py = Int(a.paddingY), px = Int(a.paddingX), outHeight = Int(a.outHeight), outWidth = Int(a.outWidth)
        let outChannels = Int(a.outChannels), perChannel = Int(a.groupOutChannels)
        let ceiling: Float? = a.relu != 0 ? a.ceiling : nil
        // The bordered plane: every read of a row's outputs, rounded up to vectors of sixteen, lies inside it
        // (a strided load reads up to sx × 8 values from where it starts).
        let vectorOutputs = (outWidth + 15) / 16 * 16
        let paddedWidth = max(width + px, (vectorOutputs - 1) * sx + kw) + 8 * sx
        let paddedHeight = max(height + py, (outHeight - 1) * sy + kh)
        ZeroBorderedPlanes.withCopy(
            of: a.src.elements, planes: Int(a.batch) * channels, sourceHeight: height, sourceWidth: width, top: py,
            left: px, height: paddedHeight, width: paddedWidth
        ) { padded in
            CPUParallel.forEachRange(Int(a.batch) * outChannels) { planes in
                let weights = a.weights.elements, dst = a.dst.elements, rowVectors = vectorOutputs / 8
                let rows = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: 4 * rowVectors)
                defer { rows.deallocate() }
                // The stride picked once, outside the loops: a choice at every load kept the sums out of
                // registers.
                @inline(__always) func sum(_ load: (UnsafePointer<Float>) -> SIMD8<Float>) {
                    for plane in planes {
                        let oc = plane % outChannels
                        let input = padded.base + (plane / outChannels * channels + oc / perChannel) * padded.planeSize
                        let filter = weights + oc * kh * kw, bias = SIMD8<Float>(repeating: a.bias.elements[oc])
                        for oy in stride(from: 0, to: outHeight, by: 4) {
                            // Four output rows at once, the last repeated where fewer are left.
                            func top(_ row: Int) -> UnsafePointer<Float> {
                                input + min(oy + row, outHeight - 1) * sy * paddedWidth
                            }
                            let (top0, top1, top2, top3) = (top(0), top(1), top(2), top(3))
                            for ox in stride(from: 0, to: vectorOutputs, by: 16) {
                                var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias,
                                    s7 = bias
                                for ky in 0..<kh {
                                    for kx in 0..<kw {
                                        let weight = SIMD8<Float>(repeating: filter[ky * kw + kx])
                                        let first = ky * paddedWidth + ox * sx + kx, second = first + 8 * sx
                                        s0.addProduct(weight, load(top0 + first))
                                        s1.addProduct(weight, load(top0 + second))
                                        s2.addProduct(weight, load(top1 + first))
                                        s3.addProduct(weight, load(top1 + second))
                                        s4.addProduct(weight, load(top2 + first))
                                        s5.addProduct(weight, load(top2 + second))
                                        s6.addProduct(weight, load(top3 + first))
                                        s7.addProduct(weight, load(top3 + second))
                                    }
                                }
                                func store(_ row: Int, _ first: SIMD8<Float>, _ second: SIMD8<Float>) {
                                    let vector = rows + row * rowVectors + ox / 8
                                    vector[0] = ceiling.map { first.rectified(ceiling: $0) } ?? first
                                    vector[1] = ceiling.map { second.rectified(ceiling: $0) } ?? second
                                }
                                store(0, s0, s1)
                                store(1, s2, s3)
                                store(2, s4, s5)
                                store(3, s6, s7)
                            }
                            for row in 0..<min(4, outHeight - oy) {
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
