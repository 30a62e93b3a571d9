import ImageKernels
import NeuralNetworks
import Testing

/// The README's network example, kept here so that it stays true.
@Suite struct ReadmeNetworkExampleTests {
    @Test func aSmallNetwork() throws {
        var network = Network()  // node 0 is the input
        let features = network.append(
            .convolution(
                .init(
                    filters: [Float](repeating: 0.1, count: 8 * 3 * 3 * 3),
                    biases: [Float](repeating: 0, count: 8),
                    kernelWidth: 3, kernelHeight: 3, padding: 1)))
        network.append(.relu)
        network.append(.add(rectified: false), inputs: [network.nodes.count - 1, features])  // a residual connection
        network.append(.relu)
        network.append(.pooling(.global(.average)))
        network.append(.l2Normalization)
        let context = try RenderContext()
        let loaded = try network.fused().loaded(on: context)  // the last ReLU folded into the sum; weights resident
        let fused = network.fused().nodes.map(\.operation)
        #expect(fused.count == network.nodes.count - 1 && (fused[3] as? ResidualAdd)?.rectified == true)
        let tensor = try PixelBuffer(
            width: 32, height: 32, channels: 3, batch: 4, values: (0..<4 * 3 * 32 * 32).map { Float($0 % 7) })
        let output = try context.render(loaded.apply(to: Image(tensor)))  // 4 × 8 × 1 × 1
        #expect(output.descriptor == ImageDescriptor(width: 1, height: 1, channels: 8, batch: 4, elementType: .float32))
        let first = output.floatValues.prefix(8)
        #expect(abs(first.map { $0 * $0 }.reduce(0, +) - 1) < 1e-5)
    }
}
