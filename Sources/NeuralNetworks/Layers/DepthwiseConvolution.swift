import ImageKernels

/// The CPU twin of `conv_depthwise`: planes in parallel, each copied once into a zero-bordered buffer so
/// that every output, the plane's edges included, is computed in vector registers, sixteen outputs of a
/// row at a time in two independent sums (one sum's chain of fused multiply-adds would wait on itself).
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
        CPUParallel.forEachRange(Int(a.batch) * outChannels) { planes in
            let src = a.src.elements, weights = a.weights.elements, dst = a.dst.elements
            let padded = UnsafeMutablePointer<Float>.allocate(capacity: paddedHeight * paddedWidth)
            let row = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: vectorOutputs / 8)
            defer {
                padded.deallocate()
                row.deallocate()
            }
            padded.initialize(repeating: 0, count: paddedHeight * paddedWidth)
            for plane in planes {
                let oc = plane % outChannels
                let input = src + (plane / outChannels * channels + oc / perChannel) * height * width
                for y in 0..<height {
                    (padded + (y + py) * paddedWidth + px).update(from: input + y * width, count: width)
                }
                let filter = weights + oc * kh * kw, bias = SIMD8<Float>(repeating: a.bias.elements[oc])
                for oy in 0..<outHeight {
                    let top = padded + oy * sy * paddedWidth
                    for ox in stride(from: 0, to: vectorOutputs, by: 16) {
                        var first = bias, second = bias
                        for ky in 0..<kh {
                            let line = top + ky * paddedWidth + ox * sx
                            for kx in 0..<kw {
                                let weight = SIMD8<Float>(repeating: filter[ky * kw + kx])
                                first.addProduct(weight, load(line + kx, stride: sx))
                                second.addProduct(weight, load(line + kx + 8 * sx, stride: sx))
                            }
                        }
                        if let ceiling {
                            first = first.rectified(ceiling: ceiling)
                            second = second.rectified(ceiling: ceiling)
                        }
                        row[ox / 8] = first
                        row[ox / 8 + 1] = second
                    }
                    UnsafeMutableRawPointer(dst + (plane * outHeight + oy) * outWidth).copyMemory(
                        from: row, byteCount: outWidth * MemoryLayout<Float>.stride)
                }
            }
        }
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
