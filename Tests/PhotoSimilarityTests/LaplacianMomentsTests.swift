import BenchmarkSupport
import ImageCodecs
import ImageKernels
import PhotoSimilarity
import ReferenceFilters
import TestSupport
import Testing

/// The Laplacian's moments against the plain reference on random planes and a long row, on each device, to the
/// bit; and the
/// sharpness they give ranks a photo above its blurred copy.
@Suite struct LaplacianMomentsTests {
    @Test(arguments: 0..<PerceptualHashTests.devices.count)
    func momentsMatchTheReference(_ index: Int) throws {
        let (name, device, schedules) = PerceptualHashTests.devices[index]
        let context = RenderContext(device: try #require(device), fallsBack: false)
        context.useSchedules(of: schedules)
        var generator = SeededGenerator()
        let width = TestImages.oddSize(3...61, using: &generator),
            height = TestImages.oddSize(3...61, using: &generator)
        let planes = TestImages.random(
            ImageDescriptor(width: width, height: height, batch: 3, elementType: .uint8), using: &generator)
        let rendered = try context.render(Image(planes).applying(LaplacianMoments())).floatValues
        let expected = ReferenceFilters.Reference.laplacianMoments(planes).floatValues
        #expect(rendered == expected, "\(width)×\(height) on \(name), seed \(generator.seed)")
    }

    /// A checkerboard's Laplacian is ±1020 at every pixel: a row of 40,000 sums squares past 2³¹ in each of
    /// sixteen lanes, which the CPU twin's 32-bit lanes must hand on to 64 bits in time.
    @Test(arguments: 0..<PerceptualHashTests.devices.count)
    func sumsOfLongRowsAreExact(_ index: Int) throws {
        let (name, device, schedules) = PerceptualHashTests.devices[index]
        let context = RenderContext(device: try #require(device), fallsBack: false)
        context.useSchedules(of: schedules)
        let width = 40_000
        let board = try PixelBuffer(
            width: width, height: 3, values: (0..<3 * width).map { ($0 % width + $0 / width) % 2 == 0 ? UInt8(255) : 0 }
        )
        let rendered = try context.render(Image(board).applying(LaplacianMoments())).floatValues
        #expect(rendered == [0, Float((width - 2) * 1020 * 1020)], "on \(name)")
        #expect(rendered == ReferenceFilters.Reference.laplacianMoments(board).floatValues, "on \(name)")
    }

    @Test(.needs(.ukbenchDev)) func aBlurredCopyIsLessSharp() throws {
        let context = RenderContext(device: .cpu)
        let photo = try ImageDecoder.decode(contentsOf: SharedData.root + "/ukbench-dev/ukbench00088.jpg")
        let gray = try context.grayPlane(of: photo)
        let blurred = try context.render(Image(gray).gaussianBlurred(sigma: 2).converted(to: .uint8))
        let sharpness = try LaplacianMoments.sharpness(ofGray: [gray, blurred], context: context)
        #expect(sharpness[0] > 2 * sharpness[1] && sharpness[1] > 1, "sharpness \(sharpness)")
        let flat = try PixelBuffer(width: 5, height: 5, values: [UInt8](repeating: 9, count: 25))
        #expect(try LaplacianMoments.sharpness(ofGray: [flat], context: context) == [0])
    }
}
