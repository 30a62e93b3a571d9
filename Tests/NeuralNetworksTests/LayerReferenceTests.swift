import BenchmarkSupport
import ImageKernels
import NeuralNetworks
import TestSupport
import Testing

/// One layer under test: from a generator, the recipe on random tensors (odd sizes, batch > 1) and what
/// the plain reference makes of the same tensors.
struct LayerCase: Sendable, CustomStringConvertible {
    let description: String
    let make: @Sendable (inout SeededGenerator) -> (recipe: Image, expected: Tensor)

    static func odd(_ range: ClosedRange<Int>, _ generator: inout SeededGenerator) -> Int {
        TestImages.oddSize(range, using: &generator)
    }

    /// The case once per method of forming the product.
    static func convolution(
        _ description: String, kernel: (Int, Int), stride: (y: Int, x: Int), padding: (y: Int, x: Int),
        trailing: (y: Int, x: Int)? = nil, channels: Int, outChannels: Int, groups: Int = 1,
        relu: Bool = false, ceiling: Float = .infinity, batch: ClosedRange<Int> = 2...3
    ) -> [LayerCase] {
        let methods: [(Convolution.Method, String)] =
            [
                (.automatic, "automatic"), (.lowered, "lowered"), (.loweredShared, "lowered, shared tiles"),
                (.direct, "direct"),
            ] + (groups == channels ? [(.depthwise, "depthwise")] : [])
        return methods.map { method, name in
            LayerCase(description: description + ", " + name) { generator in
                let x = Tensor.random(
                    batch: Int.random(in: batch, using: &generator), channels: channels,
                    height: odd(7...23, &generator), width: odd(7...23, &generator), using: &generator)
                let depth = channels / groups * kernel.0 * kernel.1
                let filters = Tensor.random(channels: 1, height: outChannels, width: depth, using: &generator)
                let biases = Tensor.random(channels: 1, height: 1, width: outChannels, using: &generator)
                let recipe = x.image.applying(
                    Convolution(
                        kernelWidth: kernel.1, kernelHeight: kernel.0, strideX: stride.x, strideY: stride.y,
                        paddingX: padding.x, paddingY: padding.y, trailingPaddingX: trailing?.x,
                        trailingPaddingY: trailing?.y, groups: groups, rectified: relu, ceiling: ceiling,
                        method: method),
                    with: [filters.parameters(width: depth), biases.parameters(width: outChannels)])
                return (
                    recipe,
                    NeuralReference.convolution(
                        x, filters: filters.values, biases: biases.values, outChannels: outChannels,
                        kernelHeight: kernel.0, kernelWidth: kernel.1, stride: stride, padding: padding,
                        trailing: trailing, groups: groups, relu: relu, ceiling: Double(ceiling))
                )
            }
        }
    }

    /// The case once per method of running a depthwise-separable convolution, against the reference 1 × 1
    /// expansion (where `expansion` gives its input's channels and ceiling), depthwise convolution, 1 × 1
    /// convolution and sum one after another. `widths` gives the input's widths (odd ones by default: rows of
    /// outputs that are not whole vectors), `heights` its heights (odd ones by default).
    static func separable(
        _ description: String, expansion: (inChannels: Int, ceiling: Float?)? = nil, kernel: Int, stride: Int,
        padding: Int, trailing: Int? = nil, channels: Int, outChannels: Int, depthwiseCeiling: Float? = nil,
        residualChannels: Int? = nil, ceiling: Float? = nil, batch: ClosedRange<Int>, widths: [Int]? = nil,
        heights: [Int]? = nil
    ) -> [LayerCase] {
        let methods: [(SeparableConvolution.Method, String)] = [
            (.automatic, "automatic"), (.fused, "fused"), (.split, "split"),
        ]
        return methods.map { method, name in
            LayerCase(description: description + ", " + name) { generator in
                let width = widths?.randomElement(using: &generator) ?? odd(7...23, &generator)
                let input = Tensor.random(
                    batch: Int.random(in: batch, using: &generator), channels: expansion?.inChannels ?? channels,
                    height: heights?.randomElement(using: &generator) ?? odd(7...23, &generator), width: width,
                    using: &generator)
                let expansionWeights = expansion.map { expansion in
                    (
                        Tensor.random(channels: 1, height: channels, width: expansion.inChannels, using: &generator),
                        Tensor.random(channels: 1, height: 1, width: channels, using: &generator)
                    )
                }
                let x =
                    expansionWeights.map { filters, biases in
                        NeuralReference.convolution(
                            input, filters: filters.values, biases: biases.values, outChannels: channels,
                            kernelHeight: 1, kernelWidth: 1, stride: (1, 1), padding: (0, 0), groups: 1,
                            relu: expansion?.ceiling != nil, ceiling: Double(expansion?.ceiling ?? .infinity))
                    } ?? input
                let depthwiseFilters = Tensor.random(
                    channels: 1, height: channels, width: kernel * kernel, using: &generator)
                let depthwiseBiases = Tensor.random(channels: 1, height: 1, width: channels, using: &generator)
                let filters = Tensor.random(channels: 1, height: outChannels, width: channels, using: &generator)
                let biases = Tensor.random(channels: 1, height: 1, width: outChannels, using: &generator)
                let depthwise = NeuralReference.convolution(
                    x, filters: depthwiseFilters.values, biases: depthwiseBiases.values, outChannels: channels,
                    kernelHeight: kernel, kernelWidth: kernel, stride: (stride, stride), padding: (padding, padding),
                    trailing: trailing.map { ($0, $0) }, groups: channels, relu: depthwiseCeiling != nil,
                    ceiling: Double(depthwiseCeiling ?? .infinity))
                var expected = NeuralReference.convolution(
                    depthwise, filters: filters.values, biases: biases.values, outChannels: outChannels,
                    kernelHeight: 1, kernelWidth: 1, stride: (1, 1), padding: (0, 0), groups: 1, relu: false)
                let residual = residualChannels.map {
                    Tensor.random(
                        batch: expected.batch, channels: $0, height: expected.height, width: expected.width,
                        using: &generator)
                }
                if let residual { expected = NeuralReference.residualAdd(expected, residual, relu: false) }
                if let ceiling {
                    expected = NeuralReference.map(expected) { value, _ in min(max(Double(value), 0), Double(ceiling)) }
                }
                let recipe = input.image.applying(
                    SeparableConvolution(
                        kernelWidth: kernel, kernelHeight: kernel, strideX: stride, strideY: stride,
                        paddingX: padding, paddingY: padding, trailingPaddingX: trailing, trailingPaddingY: trailing,
                        expands: expansion != nil, expansionCeiling: expansion?.ceiling,
                        depthwiseCeiling: depthwiseCeiling, ceiling: ceiling, method: method),
                    with: (expansionWeights.map { filters, biases in
                        [filters.parameters(width: input.channels), biases.parameters(width: channels)]
                    } ?? []) + [
                        depthwiseFilters.parameters(width: kernel * kernel),
                        depthwiseBiases.parameters(width: channels), filters.parameters(width: channels),
                        biases.parameters(width: outChannels),
                    ] + (residual.map { [$0.image] } ?? []))
                return (recipe, expected)
            }
        }
    }

    static func pooling(
        _ description: String, average: Bool, window: (Int, Int), stride: (y: Int, x: Int), padding: (y: Int, x: Int)
    ) -> LayerCase {
        LayerCase(description: description) { generator in
            let x = Tensor.random(
                batch: 2, channels: 3, height: odd(7...31, &generator), width: odd(7...45, &generator),
                using: &generator)
            let recipe = x.image.applying(
                Pooling(
                    average ? .average : .max, windowWidth: window.1, windowHeight: window.0,
                    strideX: stride.x, strideY: stride.y, paddingX: padding.x, paddingY: padding.y))
            return (
                recipe, NeuralReference.pooling(x, average: average, window: window, stride: stride, padding: padding)
            )
        }
    }

    static let all: [LayerCase] =
        convolution(
            "conv 3×3/1 pad 1, 5 → 7 channels", kernel: (3, 3), stride: (1, 1), padding: (1, 1), channels: 5,
            outChannels: 7)
        + convolution(
            "conv 3×3/2 no padding, ReLU", kernel: (3, 3), stride: (2, 2), padding: (0, 0), channels: 4, outChannels: 9,
            relu: true)
        + convolution(
            "conv 7×7/2, RGB → 6", kernel: (7, 7), stride: (2, 2), padding: (0, 0), channels: 3, outChannels: 6)
        + convolution(
            "conv 5×3 strides 1×2 pads 2×1", kernel: (5, 3), stride: (1, 2), padding: (2, 1), channels: 2,
            outChannels: 5)
        + convolution("conv 1×1", kernel: (1, 1), stride: (1, 1), padding: (0, 0), channels: 8, outChannels: 3)
        + convolution(
            "conv 1×1 over one image (its columns are its input)", kernel: (1, 1), stride: (1, 1), padding: (0, 0),
            channels: 9, outChannels: 13, batch: 1...1)
        + convolution(
            "grouped conv 3×3, 2 groups", kernel: (3, 3), stride: (1, 1), padding: (1, 1), channels: 6, outChannels: 10,
            groups: 2)
        + convolution(
            "depthwise conv 3×3/2 pad 1", kernel: (3, 3), stride: (2, 2), padding: (1, 1), channels: 5, outChannels: 5,
            groups: 5)
        + convolution(
            "conv 5×5/2 pads 1 before, 2 after (TFLite SAME)", kernel: (5, 5), stride: (2, 2), padding: (1, 1),
            trailing: (2, 2),
            channels: 3, outChannels: 4)
        + convolution(
            "depthwise conv 3×3/2 pads 0 before, 1×2 after", kernel: (3, 3), stride: (2, 2), padding: (0, 0),
            trailing: (1, 2),
            channels: 4, outChannels: 4, groups: 4)
        + convolution(
            "depthwise conv 5×5/1 pad 2, two filters a channel, ReLU", kernel: (5, 5), stride: (1, 1), padding: (2, 2),
            channels: 3, outChannels: 6, groups: 3, relu: true)
        + convolution(
            "conv 3×3/1 pad 1, clamped to 0...0.5 (a ReLU6 scaled)", kernel: (3, 3), stride: (1, 1), padding: (1, 1),
            channels: 6, outChannels: 5, relu: true, ceiling: 0.5)
        + convolution(
            "depthwise conv 5×5/2 pads 1 before, 2 after, clamped to 0...0.25", kernel: (5, 5), stride: (2, 2),
            padding: (1, 1), trailing: (2, 2), channels: 4, outChannels: 4, groups: 4, relu: true, ceiling: 0.25)
        + convolution(
            "depthwise conv 3×3/1 pad 1, one image", kernel: (3, 3), stride: (1, 1), padding: (1, 1), channels: 7,
            outChannels: 7, groups: 7, batch: 1...1)
        + separable(
            "separable 3×3/1 pad 1, 6 → 9 channels, plus 5 channels, ReLU", kernel: 3, stride: 1, padding: 1,
            channels: 6, outChannels: 9, residualChannels: 5, ceiling: .infinity, batch: 2...3)
        + separable(
            "separable 3×3/1 pad 1, 8 → 7 channels, plus 7 channels, one image of whole vectors", kernel: 3,
            stride: 1, padding: 1, channels: 8, outChannels: 7, residualChannels: 7, batch: 1...1,
            widths: [8, 16, 24])
        + separable(
            "separable 3×3/2 pads 0 before, 1 after, depthwise ReLU6, 5 → 11 channels", kernel: 3, stride: 2,
            padding: 0, trailing: 1, channels: 5, outChannels: 11, depthwiseCeiling: 6, batch: 1...2,
            widths: [16, 17, 31, 32])
        + separable(
            "separable 3×3/1 pad 1, narrow outputs (a panel's columns in up to three rows, or more)", kernel: 3,
            stride: 1, padding: 1, channels: 6, outChannels: 5, residualChannels: 5, batch: 1...3,
            widths: [1, 2, 3, 4, 5, 6])
        + separable(
            "separable 3×3/2 pad 1, narrow outputs, ReLU", kernel: 3, stride: 2, padding: 1, channels: 5,
            outChannels: 9, ceiling: .infinity, batch: 1...3, widths: [2, 5, 9, 12])
        + separable(
            "separable 3×3/1 pad 1, wide rows (the CPU twin's bands of rows, several an image, the last short)",
            kernel: 3, stride: 1, padding: 1, channels: 6, outChannels: 10, residualChannels: 4, ceiling: 6,
            batch: 1...2, widths: [64, 70], heights: [19, 23])
        + separable(
            "separable 3×3/2 pad 1, wide rows, bands of rows", kernel: 3, stride: 2, padding: 1, channels: 4,
            outChannels: 9, batch: 1...2, widths: [96, 101], heights: [37, 40])
        + separable(
            "separable 3×3/1 pad 1, four rows at a time (rows of whole tiles, bands not of four rows)",
            kernel: 3, stride: 1, padding: 1, channels: 7, outChannels: 12, residualChannels: 12, ceiling: 6,
            batch: 1...2, widths: [16, 32, 48], heights: [12, 14, 21])
        + separable(
            "separable 5×5/1 pad 2, four rows at a time, depthwise ReLU6", kernel: 5, stride: 1, padding: 2,
            channels: 5, outChannels: 8, depthwiseCeiling: 6, batch: 1...2, widths: [16, 32], heights: [8, 15])
        + separable(
            "separable 5×5/1 pad 2, depthwise clamped to 0...0.5, output to 0...0.25", kernel: 5, stride: 1,
            padding: 2, channels: 3, outChannels: 4, depthwiseCeiling: 0.5, ceiling: 0.25, batch: 1...2)
        + separable(
            "1×1 + separable 3×3/1 pad 1, 5 → 12 → 7 channels, expansion ReLU6, plus 7 channels, wide rows (the CPU "
                + "twin's window of expanded rows moving down an image)",
            expansion: (5, 6), kernel: 3, stride: 1, padding: 1, channels: 12, outChannels: 7, depthwiseCeiling: 6,
            residualChannels: 7, batch: 1...2, widths: [32, 56, 70], heights: [19, 30])
        + separable(
            "1×1 + separable 3×3/2 pads 0 before, 1 after, 4 → 10 → 6 channels, expansion unclamped, wide rows",
            expansion: (4, nil), kernel: 3, stride: 2, padding: 0, trailing: 1, channels: 10, outChannels: 6,
            ceiling: 6, batch: 1...2, widths: [64, 57], heights: [37, 40])
        + separable(
            "1×1 + separable 5×5/1 pad 2, 6 → 9 → 5 channels, rows not whole vectors", expansion: (6, 6), kernel: 5,
            stride: 1, padding: 2, channels: 9, outChannels: 5, depthwiseCeiling: 6, batch: 1...2,
            widths: [28, 13, 17])
        + separable(
            "1×1 + separable 3×3/1 pad 1, 3 → 8 → 4 channels, narrow outputs", expansion: (3, .infinity), kernel: 3,
            stride: 1, padding: 1, channels: 8, outChannels: 4, residualChannels: 4, batch: 1...3, widths: [5, 9])
        + [
            LayerCase(description: "channel affine + ReLU") { generator in
                let x = Tensor.random(
                    batch: 3, channels: 5, height: odd(3...21, &generator), width: odd(3...21, &generator),
                    using: &generator)
                let scale = Tensor.random(channels: 1, height: 1, width: 5, using: &generator)
                let shift = Tensor.random(channels: 1, height: 1, width: 5, using: &generator)
                return (
                    x.image.channelAffine(
                        scale: scale.parameters(width: 5), shift: shift.parameters(width: 5), rectified: true),
                    NeuralReference.channelAffine(x, scale: scale.values, shift: shift.values, relu: true)
                )
            },
            LayerCase(description: "ReLU") { generator in
                let x = Tensor.random(
                    batch: 2, channels: 3, height: odd(3...21, &generator), width: odd(3...21, &generator),
                    using: &generator)
                return (
                    x.image.rectified(),
                    NeuralReference.channelAffine(x, scale: [1, 1, 1], shift: [0, 0, 0], relu: true)
                )
            },
            LayerCase(description: "ReLU6, inputs in -12...12") { generator in
                var x = Tensor.random(
                    batch: 2, channels: 3, height: odd(3...21, &generator), width: odd(3...21, &generator),
                    using: &generator)
                x.values = x.values.map { $0 * 12 }
                return (
                    x.image.rectified6(),
                    NeuralReference.map(x) { value, _ in min(max(Double(value), 0), 6) }
                )
            },
            LayerCase(description: "PReLU") { generator in
                let x = Tensor.random(
                    batch: 2, channels: 4, height: odd(3...21, &generator), width: odd(3...21, &generator),
                    using: &generator)
                let slopes = Tensor.random(channels: 1, height: 1, width: 4, using: &generator)
                return (
                    x.image.parametricRectified(slopes: slopes.parameters(width: 4)),
                    NeuralReference.prelu(x, slopes: slopes.values)
                )
            },
            pooling("max pool 3×3/2", average: false, window: (3, 3), stride: (2, 2), padding: (0, 0)),
            pooling("max pool 2×2/2 pad 1", average: false, window: (2, 2), stride: (2, 2), padding: (1, 1)),
            pooling("average pool 2×2/2", average: true, window: (2, 2), stride: (2, 2), padding: (0, 0)),
            pooling("average pool 3×3/1 pad 1", average: true, window: (3, 3), stride: (1, 1), padding: (1, 1)),
            pooling(
                "max pool 3×3/3 (strided gathers)", average: false, window: (3, 3), stride: (3, 3), padding: (0, 0)),
            LayerCase(description: "global average pool") { generator in
                let x = Tensor.random(
                    batch: 3, channels: 4, height: odd(1...9, &generator), width: odd(1...9, &generator),
                    using: &generator)
                return (
                    x.image.globallyPooled(.average),
                    NeuralReference.pooling(
                        x, average: true, window: (x.height, x.width), stride: (1, 1), padding: (0, 0))
                )
            },
            LayerCase(description: "residual add, equal shapes, ReLU") { generator in
                let h = odd(3...21, &generator), w = odd(3...21, &generator)
                let a = Tensor.random(batch: 2, channels: 3, height: h, width: w, using: &generator)
                let b = Tensor.random(batch: 2, channels: 3, height: h, width: w, using: &generator)
                return (a.image.adding(b.image, rectified: true), NeuralReference.residualAdd(a, b, relu: true))
            },
            LayerCase(description: "residual add, smaller and fewer channels zero-padded") { generator in
                let a = Tensor.random(batch: 2, channels: 6, height: 3, width: 3, using: &generator)
                let b = Tensor.random(batch: 2, channels: 3, height: 4, width: 4, using: &generator)
                return (a.image.adding(b.image), NeuralReference.residualAdd(a, b, relu: false))
            },
            // Batches past one run of items and outputs past one tile of sixteen, for the CPU twin's tiles.
            LayerCase(description: "fully connected") { generator in
                let x = Tensor.random(
                    batch: odd(3...150, &generator), channels: 5, height: 3, width: 3, using: &generator)
                let outputs = odd(3...40, &generator)
                let weights = Tensor.random(channels: 1, height: 45, width: outputs, using: &generator)
                let biases = Tensor.random(channels: 1, height: 1, width: outputs, using: &generator)
                return (
                    x.image.fullyConnected(
                        weights: weights.parameters(width: outputs), biases: biases.parameters(width: outputs)),
                    NeuralReference.fullyConnected(x, weights: weights.values, biases: biases.values)
                )
            },
            LayerCase(description: "L2 normalisation") { generator in
                let x = Tensor.random(batch: 3, channels: 7, height: 1, width: 1, using: &generator)
                return (x.image.l2Normalized(), NeuralReference.l2Normalized(x))
            },
            LayerCase(description: "channel concat") { generator in
                let h = odd(3...15, &generator), w = odd(3...15, &generator)
                let a = Tensor.random(batch: 2, channels: 3, height: h, width: w, using: &generator)
                let b = Tensor.random(batch: 2, channels: 2, height: h, width: w, using: &generator)
                return (a.image.concatenatingChannels(b.image), NeuralReference.channelConcat(a, b))
            },
            LayerCase(description: "depth to space ×2") { generator in
                let x = Tensor.random(
                    batch: 2, channels: 4 * odd(1...5, &generator), height: odd(3...13, &generator),
                    width: odd(3...13, &generator), using: &generator)
                return (x.image.depthToSpace(blockSize: 2), NeuralReference.depthToSpace(x, block: 2))
            },
            LayerCase(description: "channels last, three tensors as rows") { generator in
                let rowLength = odd(1...5, &generator)
                let tensors = [rowLength, 2 * rowLength, 3 * rowLength].map { channels in
                    Tensor.random(
                        batch: 2, channels: channels, height: odd(3...11, &generator), width: odd(3...11, &generator),
                        using: &generator)
                }
                return (
                    tensors[0].image.channelsLast(rowLength: rowLength, appending: tensors.dropFirst().map(\.image)),
                    NeuralReference.channelsLast(tensors, rowLength: rowLength)
                )
            },
        ]
}

/// Every layer on each device against the plain reference, fresh seed per run.
@Suite struct LayerReferenceTests {
    @Test(arguments: LayerCase.all)
    func cpuDeviceMatchesReference(_ layer: LayerCase) throws {
        try check(layer, on: .cpu)
    }

    @Test(
        .enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"), arguments: LayerCase.all)
    func openCLDeviceMatchesReference(_ layer: LayerCase) throws {
        try check(layer, on: try TestDevices.openCL.get())
    }

    /// The schedules (and kernel shapes) written for GPUs, run on the OpenCL device at hand.
    @Test(
        .enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: OpenCL tests skipped"), arguments: LayerCase.all)
    func openCLDeviceOnGPUSchedulesMatchesReference(_ layer: LayerCase) throws {
        try check(layer, on: try TestDevices.openCL.get(), schedules: .openCL(.gpu))
    }

    private func check(_ layer: LayerCase, on device: Device, schedules: DeviceKind? = nil) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: device, fallsBack: false)
        context.useSchedules(of: schedules)
        let (recipe, expected) = layer.make(&generator)
        let rendered = Tensor(try context.render(recipe))
        let error = rendered.relativeError(to: expected)
        #expect(error <= 1e-4, "\(layer) on \(device), seed \(generator.seed): relative error \(error)")
    }

    /// On the CPU device a separable convolution's two forms add the same terms in the same order, so they give
    /// the same floats to the bit: the fused twin (four rows at once where rows are whole tiles, rows crossing
    /// in narrow outputs) against the depthwise twin (eight rows of eight where planes are narrow) and the
    /// product after it.
    @Test(arguments: [(3, 1, [16, 48, 7, 13]), (5, 1, [32, 6, 19]), (3, 2, [33, 9])])
    func fusedAndSplitAgreeToTheBit(kernel: Int, stride: Int, widths: [Int]) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: .cpu, fallsBack: false)
        for width in widths {
            let channels = 7, outChannels = 12
            let x = Tensor.random(batch: 2, channels: channels, height: 13, width: width, using: &generator)
            let weights = Self.separableWeights(
                channels: channels, outChannels: outChannels, kernel: kernel, using: &generator)
            let rendered = try [SeparableConvolution.Method.fused, .split].map { method in
                try context.render(
                    x.image.applying(
                        SeparableConvolution(
                            kernelWidth: kernel, kernelHeight: kernel, strideX: stride, strideY: stride,
                            paddingX: kernel / 2, paddingY: kernel / 2, depthwiseCeiling: 6, ceiling: 6,
                            method: method),
                        with: weights)
                ).floatValues
            }
            #expect(
                rendered[0] == rendered[1],
                "\(kernel)×\(kernel)/\(stride), width \(width), seed \(generator.seed): the fused form differs")
        }
    }

    /// On the CPU device a separable convolution's expansion gives the same floats to the bit formed in the
    /// fused twin, band by band (``ExpandedRows``), as launched before it as a layer of its own. The images are
    /// tall enough for a worker's range of bands to hold three or more on two cores, so that rows are kept for
    /// the next band and the window of rows moves.
    @Test(arguments: [(3, 1, [56, 28, 20], 401), (5, 1, [32, 13], 401), (3, 2, [112, 33], 801)])
    func expansionInTheTwinAgreesToTheBit(kernel: Int, stride: Int, widths: [Int], height: Int) throws {
        var generator = SeededGenerator()
        let context = RenderContext(device: .cpu, fallsBack: false)
        for width in widths {
            let inChannels = 5, channels = 24, outChannels = 12
            let x = Tensor.random(batch: 1, channels: inChannels, height: height, width: width, using: &generator)
            let weights = Self.separableWeights(
                expandingFrom: inChannels, channels: channels, outChannels: outChannels, kernel: kernel,
                using: &generator)
            func rendered(expandingInTheTwin: Bool) throws -> [Float] {
                let layer = SeparableConvolution(
                    kernelWidth: kernel, kernelHeight: kernel, strideX: stride, strideY: stride,
                    paddingX: kernel / 2, paddingY: kernel / 2, expands: expandingInTheTwin, expansionCeiling: 6,
                    depthwiseCeiling: 6, ceiling: 6, method: .fused)
                guard !expandingInTheTwin else {
                    return try context.render(x.image.applying(layer, with: weights)).floatValues
                }
                let expanded = x.image.convolved(
                    filters: weights[0], biases: weights[1], kernelWidth: 1, kernelHeight: 1, rectified: true,
                    ceiling: 6)
                return try context.render(expanded.applying(layer, with: Array(weights[2...]))).floatValues
            }
            #expect(
                try rendered(expandingInTheTwin: true) == rendered(expandingInTheTwin: false),
                "\(kernel)×\(kernel)/\(stride), width \(width), seed \(generator.seed): the expansion differs")
        }
    }

    /// Random weights of a separable convolution as its inputs after the tensor: the expansion's from
    /// `inChannels` channels where given, the depthwise filters and biases, the 1 × 1 filters and biases.
    private static func separableWeights(
        expandingFrom inChannels: Int? = nil, channels: Int, outChannels: Int, kernel: Int,
        using generator: inout SeededGenerator
    ) -> [Image] {
        func matrix(_ rows: Int, _ width: Int) -> Image {
            Tensor.random(channels: 1, height: rows, width: width, using: &generator).parameters(width: width)
        }
        let expansion = inChannels.map { [matrix(channels, $0), matrix(1, channels)] } ?? []
        return expansion + [
            matrix(channels, kernel * kernel), matrix(1, channels), matrix(outChannels, channels),
            matrix(1, outChannels),
        ]
    }

    @Test func everyKernelMatchesItsSource() throws {
        let problems = try KernelSourceChecks.problems(module: "NeuralNetworks", kernels: NeuralNetworksLibrary.kernels)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
