import BenchmarkSupport
import ImageKernels
import NeuralNetworks
import TestSupport
import Testing

/// ``Network/fused()`` against the same network layer by layer: fewer nodes, the same outputs.
@Suite struct NetworkFusionTests {
    /// A block of MobileNet's and BlazeFace's kind: a convolution, then a depthwise convolution, an affine map
    /// and a 1 × 1 convolution, their sum with the first convolution's output and a ReLU; then another
    /// depthwise and 1 × 1 pair added to a `wider` tensor (the sum then takes the larger shape) and an affine
    /// map after that sum.
    static func block(channels: Int, wider: Int, using generator: inout SeededGenerator) -> Network {
        func random(_ count: Int) -> [Float] { (0..<count).map { _ in Float.random(in: -1..<1, using: &generator) } }
        func depthwise() -> Network.ConvolutionWeights {
            Network.ConvolutionWeights(
                filters: random(channels * 9), biases: random(channels), kernelWidth: 3, kernelHeight: 3, padding: 1,
                groups: channels)
        }
        func pointwise(_ out: Int) -> Network.ConvolutionWeights {
            Network.ConvolutionWeights(
                filters: random(out * channels), biases: random(out), kernelWidth: 1, kernelHeight: 1)
        }
        var network = Network()
        let first = network.append(
            .convolution(
                Network.ConvolutionWeights(
                    filters: random(channels * 3 * 9), biases: random(channels), kernelWidth: 3, kernelHeight: 3,
                    padding: 1)))
        network.append(.convolution(depthwise()))
        network.append(.channelAffine(scale: random(channels), shift: random(channels), rectified: false))
        let sum = network.append(.convolution(pointwise(channels)))
        network.append(.add(rectified: false), inputs: [first, sum])
        let block = network.append(.relu)
        let side = network.append(
            .convolution(
                Network.ConvolutionWeights(
                    filters: random(wider * channels), biases: random(wider), kernelWidth: 1, kernelHeight: 1)),
            inputs: [block])
        network.append(.convolution(depthwise()), inputs: [block])
        let second = network.append(.convolution(pointwise(channels)))
        network.append(.add(rectified: true), inputs: [side, second])
        network.append(.channelAffine(scale: random(wider), shift: random(wider), rectified: false))
        return network
    }

    @Test(arguments: TestDevices.hasOpenCL ? [DeviceChoice.cpu, .opencl] : [.cpu])
    func fusedNetworksComputeTheSame(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        let channels = 8, wider = 11
        let network = Self.block(channels: channels, wider: wider, using: &generator)
        let fused = network.fused()
        // The first sum and its ReLU go into the separable convolution, the affine map before it into the
        // depthwise one; the second sum into the second separable one (which cannot take its wider input,
        // so adds it after itself); the last affine map stays on its own.
        let kinds = fused.nodes.dropFirst().map { "\(type(of: $0.operation))" }
        #expect(
            kinds == [
                "ConvolutionWeights", "SeparableConvolutionWeights", "ConvolutionWeights",
                "SeparableConvolutionWeights", "ChannelAffineWeights",
            ], "seed \(generator.seed)")
        let context = RenderContext(device: try TestDevices.device(choice), fallsBack: false)
        let x = Tensor.random(batch: 2, channels: 3, height: 13, width: 16, using: &generator)
        let expected = Tensor(try context.render(network.loaded(on: context).apply(to: x.image)))
        let rendered = Tensor(try context.render(fused.loaded(on: context).apply(to: x.image)))
        #expect((expected.channels, expected.height, expected.width) == (wider, 13, 16))
        let error = rendered.relativeError(to: expected)
        #expect(error <= 1e-5, "seed \(generator.seed): relative error \(error)")
    }

    /// EfficientNet-Lite's inverted-residual block: a 1 × 1 expansion with an affine map and a ReLU6, a
    /// depthwise convolution with the same, a 1 × 1 projection with an affine map, the sum with the block's
    /// input, all one separable convolution once fused; then a second expansion, which stays a layer of its own
    /// because the second block's sum reads it too.
    @Test(arguments: TestDevices.hasOpenCL ? [DeviceChoice.cpu, .opencl] : [.cpu])
    func expansionsMergeIntoTheSeparableConvolutionsTheyFeed(_ choice: DeviceChoice) throws {
        var generator = SeededGenerator()
        func random(_ count: Int) -> [Float] { (0..<count).map { _ in Float.random(in: -1..<1, using: &generator) } }
        let channels = 4, expanded = 12, width = 32
        func pointwise(_ inChannels: Int, _ out: Int) -> Network.ConvolutionWeights {
            Network.ConvolutionWeights(
                filters: random(out * inChannels), biases: random(out), kernelWidth: 1, kernelHeight: 1)
        }
        func affine(_ count: Int) -> Network.ChannelAffineWeights {
            .channelAffine(scale: random(count), shift: random(count), rectified: false)
        }
        var network = Network()
        network.append(.convolution(pointwise(channels, expanded)))
        network.append(affine(expanded))
        network.append(.relu6)
        network.append(
            .convolution(
                Network.ConvolutionWeights(
                    filters: random(expanded * 9), biases: random(expanded), kernelWidth: 3, kernelHeight: 3,
                    padding: 1, groups: expanded)))
        network.append(affine(expanded))
        network.append(.relu6)
        network.append(.convolution(pointwise(expanded, channels)))
        let projected = network.append(affine(channels))
        let block = network.append(.add(rectified: false), inputs: [0, projected])
        let second = network.append(.convolution(pointwise(channels, expanded)), inputs: [block])
        network.append(
            .convolution(
                Network.ConvolutionWeights(
                    filters: random(expanded * 9), biases: random(expanded), kernelWidth: 3, kernelHeight: 3,
                    padding: 1, groups: expanded)))
        let last = network.append(.convolution(pointwise(expanded, channels)))
        network.append(.add(rectified: false), inputs: [second, last])
        let fused = network.fused()
        let kinds = fused.nodes.dropFirst().map { node in
            (node.operation as? Network.SeparableConvolutionWeights).map { $0.expansion != nil ? "expanded" : "plain" }
                ?? "\(type(of: node.operation))"
        }
        #expect(kinds == ["expanded", "ConvolutionWeights", "plain"], "seed \(generator.seed): \(kinds)")
        let context = RenderContext(device: try TestDevices.device(choice), fallsBack: false)
        let x = Tensor.random(batch: 2, channels: channels, height: 21, width: width, using: &generator)
        let expected = Tensor(try context.render(network.loaded(on: context).apply(to: x.image)))
        let rendered = Tensor(try context.render(fused.loaded(on: context).apply(to: x.image)))
        let error = rendered.relativeError(to: expected)
        #expect(error <= 1e-5, "seed \(generator.seed): relative error \(error)")
    }

    /// The layer itself refuses a residual it cannot add where it is stored, naming it.
    @Test func separableConvolutionRefusesAResidualOfAnotherSize() throws {
        var generator = SeededGenerator()
        let x = Tensor.random(channels: 4, height: 9, width: 8, using: &generator)
        func parameters(_ count: Int, width: Int) -> Image {
            Tensor.random(channels: 1, height: 1, width: count, using: &generator).parameters(width: width)
        }
        let residual = Tensor.random(channels: 4, height: 9, width: 9, using: &generator)
        let recipe = x.image.separablyConvolved(
            depthwiseFilters: parameters(36, width: 9), depthwiseBiases: parameters(4, width: 4), kernelWidth: 3,
            kernelHeight: 3, padding: 1, pointwiseFilters: parameters(24, width: 4),
            pointwiseBiases: parameters(6, width: 6), adding: residual.image)
        let error = #expect(throws: RenderError.self) { try RenderContext(device: .cpu).render(recipe) }
        #expect(error.map { "\($0)" }?.contains("residual") == true, "\(String(describing: error))")
    }
}
