import BenchmarkSupport
import ImageCodecs
import ImageKernels
import PhotoSimilarity
import ReferenceFilters
import TestSupport
import Testing

/// The Laplacian's moments against the plain reference on random planes, on each device; and the
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
        let error = zip(rendered, expected).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
        #expect(
            rendered.count == expected.count && error <= 1e-5,
            "\(width)×\(height) on \(name), seed \(generator.seed): off by \(error)")
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
