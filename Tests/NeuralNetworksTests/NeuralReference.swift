/// The layers written as directly as possible, in Double, for checking the kernels.
enum NeuralReference {
    static func convolution(
        _ x: Tensor, filters: [Float], biases: [Float], outChannels: Int, kernelHeight kh: Int, kernelWidth kw: Int,
        stride: (y: Int, x: Int), padding: (y: Int, x: Int), trailing: (y: Int, x: Int)? = nil, groups: Int,
        relu: Bool, ceiling: Double = .infinity
    ) -> Tensor {
        let trailing = trailing ?? padding
        let outHeight = (x.height + padding.y + trailing.y - kh) / stride.y + 1,
            outWidth = (x.width + padding.x + trailing.x - kw) / stride.x + 1
        let groupIn = x.channels / groups, groupOut = outChannels / groups
        var y = Tensor(batch: x.batch, channels: outChannels, height: outHeight, width: outWidth)
        for n in 0..<x.batch {
            for o in 0..<outChannels {
                let g = o / groupOut
                for oy in 0..<outHeight {
                    for ox in 0..<outWidth {
                        var sum = Double(biases[o])
                        for c in 0..<groupIn {
                            for ky in 0..<kh {
                                for kx in 0..<kw {
                                    let iy = oy * stride.y - padding.y + ky, ix = ox * stride.x - padding.x + kx
                                    guard iy >= 0, iy < x.height, ix >= 0, ix < x.width else { continue }
                                    sum +=
                                        Double(filters[((o * groupIn + c) * kh + ky) * kw + kx])
                                        * Double(x[n, g * groupIn + c, iy, ix])
                                }
                            }
                        }
                        y[n, o, oy, ox] = Float(relu ? min(max(sum, 0), ceiling) : sum)
                    }
                }
            }
        }
        return y
    }

    static func channelAffine(_ x: Tensor, scale: [Float], shift: [Float], relu: Bool) -> Tensor {
        map(x) { value, c in
            let result = Double(value) * Double(scale[c]) + Double(shift[c])
            return relu ? max(result, 0) : result
        }
    }

    static func prelu(_ x: Tensor, slopes: [Float]) -> Tensor {
        map(x) { value, c in value >= 0 ? Double(value) : Double(slopes[c]) * Double(value) }
    }

    static func pooling(
        _ x: Tensor, average: Bool, window: (height: Int, width: Int), stride: (y: Int, x: Int),
        padding: (y: Int, x: Int)
    ) -> Tensor {
        let outHeight = (x.height + 2 * padding.y - window.height) / stride.y + 1
        let outWidth = (x.width + 2 * padding.x - window.width) / stride.x + 1
        var y = Tensor(batch: x.batch, channels: x.channels, height: outHeight, width: outWidth)
        for n in 0..<x.batch {
            for c in 0..<x.channels {
                for oy in 0..<outHeight {
                    for ox in 0..<outWidth {
                        var values: [Double] = []
                        for wy in 0..<window.height {
                            for wx in 0..<window.width {
                                let iy = oy * stride.y - padding.y + wy, ix = ox * stride.x - padding.x + wx
                                if iy >= 0, iy < x.height, ix >= 0, ix < x.width {
                                    values.append(Double(x[n, c, iy, ix]))
                                }
                            }
                        }
                        let result =
                            average ? values.reduce(0, +) / Double(max(values.count, 1)) : values.max() ?? -.infinity
                        y[n, c, oy, ox] = Float(result)
                    }
                }
            }
        }
        return y
    }

    static func residualAdd(_ a: Tensor, _ b: Tensor, relu: Bool) -> Tensor {
        var y = Tensor(
            batch: a.batch, channels: max(a.channels, b.channels), height: max(a.height, b.height),
            width: max(a.width, b.width))
        func read(_ t: Tensor, _ n: Int, _ c: Int, _ iy: Int, _ ix: Int) -> Double {
            c < t.channels && iy < t.height && ix < t.width ? Double(t[n, c, iy, ix]) : 0
        }
        for n in 0..<y.batch {
            for c in 0..<y.channels {
                for iy in 0..<y.height {
                    for ix in 0..<y.width {
                        let sum = read(a, n, c, iy, ix) + read(b, n, c, iy, ix)
                        y[n, c, iy, ix] = Float(relu ? max(sum, 0) : sum)
                    }
                }
            }
        }
        return y
    }

    static func fullyConnected(_ x: Tensor, weights: [Float], biases: [Float]) -> Tensor {
        let inputs = x.channels * x.height * x.width, outputs = biases.count
        var y = Tensor(batch: x.batch, channels: outputs, height: 1, width: 1)
        for n in 0..<x.batch {
            for j in 0..<outputs {
                var sum = Double(biases[j])
                for i in 0..<inputs { sum += Double(x.values[n * inputs + i]) * Double(weights[i * outputs + j]) }
                y.values[n * outputs + j] = Float(sum)
            }
        }
        return y
    }

    static func l2Normalized(_ x: Tensor) -> Tensor {
        var y = x
        let count = x.values.count / x.batch
        for n in 0..<x.batch {
            let norm = (0..<count).map { Double(x.values[n * count + $0]) * Double(x.values[n * count + $0]) }.reduce(
                0, +
            ).squareRoot()
            for i in 0..<count {
                y.values[n * count + i] = norm > 0 ? Float(Double(x.values[n * count + i]) / norm) : 0
            }
        }
        return y
    }

    static func channelConcat(_ a: Tensor, _ b: Tensor) -> Tensor {
        var y = Tensor(batch: a.batch, channels: a.channels + b.channels, height: a.height, width: a.width)
        let spatial = a.height * a.width
        for n in 0..<a.batch {
            for c in 0..<y.channels {
                for i in 0..<spatial {
                    y.values[(n * y.channels + c) * spatial + i] =
                        c < a.channels
                        ? a.values[(n * a.channels + c) * spatial + i]
                        : b.values[(n * b.channels + c - a.channels) * spatial + i]
                }
            }
        }
        return y
    }

    static func depthToSpace(_ x: Tensor, block: Int) -> Tensor {
        var y = Tensor(
            batch: x.batch, channels: x.channels / (block * block), height: x.height * block, width: x.width * block)
        for n in 0..<y.batch {
            for c in 0..<y.channels {
                for oy in 0..<y.height {
                    for ox in 0..<y.width {
                        y[n, c, oy, ox] =
                            x[n, ((oy % block) * block + ox % block) * y.channels + c, oy / block, ox / block]
                    }
                }
            }
        }
        return y
    }

    /// Each batch item's elements of every tensor in NHWC order, one tensor after another, as rows of
    /// `rowLength` (one plane per item).
    static func channelsLast(_ tensors: [Tensor], rowLength: Int) -> Tensor {
        let batch = tensors[0].batch
        var values: [Float] = []
        for n in 0..<batch {
            for t in tensors {
                for iy in 0..<t.height {
                    for ix in 0..<t.width {
                        for c in 0..<t.channels { values.append(t[n, c, iy, ix]) }
                    }
                }
            }
        }
        return Tensor(
            batch: batch, channels: 1, height: values.count / batch / rowLength, width: rowLength, values: values)
    }

    static func map(_ x: Tensor, _ body: (Float, Int) -> Double) -> Tensor {
        var y = x
        let spatial = x.height * x.width
        for i in x.values.indices { y.values[i] = Float(body(x.values[i], i / spatial % x.channels)) }
        return y
    }
}
