import ImageKernels
import TestSupport
import Testing

@Suite struct IntegralImageTests {
    static var devices: [DeviceChoice] { TestDevices.hasOpenCL ? [.cpu, .opencl] : [.cpu] }

    /// Squared sums of a large white image pass 2³² and wrap; window sums from four corners stay exact,
    /// which is what cascade detectors rely on (as OpenCV's do).
    @Test(arguments: devices)
    func windowSumsSurviveWrapping(_ choice: DeviceChoice) throws {
        let side = 300
        let white = try PixelBuffer(width: side, height: side, values: [UInt8](repeating: 255, count: side * side))
        let context = RenderContext(device: try TestDevices.device(choice))
        let squares = try context.render(Image(white).integral(.squaredSums)).uint32Values
        let stride = side + 1
        func window(_ x: Int, _ y: Int, _ size: Int) -> UInt32 {
            squares[(y + size) * stride + x + size] &- squares[y * stride + x + size]
                &- squares[(y + size) * stride + x] &+ squares[y * stride + x]
        }
        #expect(squares[side * stride + side] == UInt32(truncatingIfNeeded: 255 * 255 * side * side))
        #expect(255 * 255 * side * side > Int(UInt32.max))
        #expect(window(250, 270, 24) == 255 * 255 * 24 * 24)
        #expect(window(0, 0, 24) == 255 * 255 * 24 * 24)
    }
}
