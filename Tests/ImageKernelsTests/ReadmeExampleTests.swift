import ImageKernels
import Testing

/// The README's framework example, kept here word for word so that it stays true.
@Suite struct ReadmeExampleTests {
    @Test func composeAndRender() throws {
        var printed: [String] = []  // what the example prints, read below rather than on the console
        func print(_ values: Any...) { printed.append(values.map { "\($0)" }.joined(separator: " ")) }
        // README example begins
        let faces = try PixelBuffer(
            width: 128, height: 128, batch: 2,
            values: (0..<2 * 128 * 128).map { UInt8($0 % 251) })
        let descriptors = Image(faces)
            .gammaAdjusted(0.2)
            .differenceOfGaussians(sigma1: 1, sigma2: 2)
            .contrastEqualized()
            .localBinaryPattern(uniform: true)
            .blockHistograms(gridColumns: 8, gridRows: 8, bins: 59)
        let context = try RenderContext()  // Device.best: IMAGEKERNELS_DEVICE=auto|cpu|opencl|gpu
        let histograms = try context.render(descriptors)
        print(histograms.descriptor)  // 2×1×64×59 float32: 64 blocks of 59 bins per face
        // README example ends
        #expect(printed == ["2×1×64×59 float32"])
        #expect(histograms.descriptor == ImageDescriptor(width: 59, height: 64, batch: 2, elementType: .float32))
        let firstBlock = histograms.floatValues.prefix(59).reduce(0, +)
        #expect(abs(firstBlock - 1) < 1e-5)
    }
}
