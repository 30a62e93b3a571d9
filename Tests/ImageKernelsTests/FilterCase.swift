import BenchmarkSupport
import ImageKernels
import ReferenceFilters
import TestSupport

/// One built-in filter under test: how to make a random input, the recipe, the reference, and the
/// tolerance (0 means exact; floats compare relative to max(1, |expected|)).
struct FilterCase: Sendable, CustomStringConvertible {
    let description: String
    let input: @Sendable (inout SeededGenerator) -> PixelBuffer
    let recipe: @Sendable (Image) -> Image
    let reference: @Sendable (PixelBuffer) -> PixelBuffer
    var tolerance: Float = 0

    /// A random batch of 2–3 planes (or images of `channels`) with odd sizes.
    static func randomBatch(
        _ type: ElementType, channels: Int = 1, sizes: ClosedRange<Int> = 5...41,
        maximum: Int = 255
    ) -> @Sendable (inout SeededGenerator) -> PixelBuffer {
        { generator in
            let descriptor = ImageDescriptor(
                width: TestImages.oddSize(sizes, using: &generator),
                height: TestImages.oddSize(sizes, using: &generator),
                channels: channels, batch: Int.random(in: 2...3, using: &generator),
                elementType: type)
            return TestImages.random(descriptor, maximum: maximum, using: &generator)
        }
    }

    /// One plane of odd size (filters that take a single plane).
    static func randomPlane(_ type: ElementType) -> @Sendable (inout SeededGenerator) -> PixelBuffer {
        { generator in
            TestImages.random(
                ImageDescriptor(
                    width: TestImages.oddSize(5...41, using: &generator),
                    height: TestImages.oddSize(5...41, using: &generator), elementType: type),
                using: &generator)
        }
    }

    /// A region of a 17 × 13 resize, off its corner and across more than a group of 8 columns.
    static let resizedRegion = PixelRect(x: 3, y: 2, width: 10, height: 9)
    static let atlasRegions = [
        PixelRect(x: 0, y: 0, width: 23, height: 17), PixelRect(x: 23, y: 0, width: 13, height: 9),
        PixelRect(x: 23, y: 9, width: 5, height: 3), PixelRect(x: 0, y: 17, width: 40, height: 14),
    ]

    static let all: [FilterCase] = [
        FilterCase(
            description: "uint8 → float", input: randomBatch(.uint8),
            recipe: { $0.converted(to: .float32) }, reference: { Reference.converted($0, to: .float32) }),
        FilterCase(
            description: "float → uint8", input: randomBatch(.float32),
            recipe: { $0.converted(to: .uint8) }, reference: { Reference.converted($0, to: .uint8) }),
        FilterCase(
            description: "grayscale uint8 RGB", input: randomBatch(.uint8, channels: 3),
            recipe: { $0.grayscale() }, reference: Reference.grayscale),
        FilterCase(
            description: "grayscale float RGBA", input: randomBatch(.float32, channels: 4),
            recipe: { $0.grayscale() }, reference: Reference.grayscale, tolerance: 1e-6),
        FilterCase(
            description: "gamma 0.2", input: randomBatch(.float32),
            recipe: { $0.gammaAdjusted(0.2) }, reference: { Reference.gammaAdjusted($0, gamma: 0.2) },
            tolerance: 1e-5),
        FilterCase(
            description: "gaussian σ1.3", input: randomBatch(.float32),
            recipe: { $0.gaussianBlurred(sigma: 1.3) }, reference: { Reference.gaussianBlurred($0, sigma: 1.3) },
            tolerance: 1e-5),
        FilterCase(
            description: "gaussian σ2 on 3-pixel planes", input: randomBatch(.float32, sizes: 3...3),
            recipe: { $0.gaussianBlurred(sigma: 2) }, reference: { Reference.gaussianBlurred($0, sigma: 2) },
            tolerance: 1e-5),
        FilterCase(
            description: "DoG σ1−σ2", input: randomBatch(.float32),
            recipe: { $0.differenceOfGaussians(sigma1: 1, sigma2: 2) },
            reference: { Reference.differenceOfGaussians($0, sigma1: 1, sigma2: 2) }, tolerance: 1e-5),
        // Tan–Triggs gets the same input as its reference: x^0.1 and mean^(−10) make it ill-conditioned near
        // zero, so feeding it the device's DoG output against a double-precision DoG failed about 1 run in 16.
        FilterCase(
            description: "Tan–Triggs", input: randomBatch(.float32),
            recipe: { $0.contrastEqualized() }, reference: { Reference.contrastEqualized($0) },
            tolerance: 1e-4),
        FilterCase(
            description: "LBP 3×3 uint8", input: randomBatch(.uint8, maximum: 3),
            recipe: { $0.localBinaryPattern() }, reference: { Reference.localBinaryPattern($0) }),
        FilterCase(
            description: "LBP 3×3 float uniform", input: randomBatch(.float32),
            recipe: { $0.localBinaryPattern(uniform: true) },
            reference: { Reference.localBinaryPattern($0, uniform: true) }),
        FilterCase(
            description: "LBP(8,1) float", input: randomBatch(.float32),
            recipe: { $0.localBinaryPattern(neighbours: 8, radius: 1) },
            reference: { Reference.localBinaryPattern($0, neighbours: 8, radius: 1) }),
        FilterCase(
            description: "LBP(8,2) uint8 uniform", input: randomBatch(.uint8, sizes: 7...41),
            recipe: { $0.localBinaryPattern(neighbours: 8, radius: 2, uniform: true) },
            reference: { Reference.localBinaryPattern($0, neighbours: 8, radius: 2, uniform: true) }),
        FilterCase(
            description: "LBP(6,3) uint8", input: randomBatch(.uint8, sizes: 9...41),
            recipe: { $0.localBinaryPattern(neighbours: 6, radius: 3) },
            reference: { Reference.localBinaryPattern($0, neighbours: 6, radius: 3) }),
        FilterCase(
            description: "crop uint8", input: randomBatch(.uint8, sizes: 9...41),
            recipe: { $0.cropped(to: PixelRect(x: 1, y: 2, width: 6, height: 5)) },
            reference: { Reference.cropped($0, to: PixelRect(x: 1, y: 2, width: 6, height: 5)) }),
        FilterCase(
            description: "crop float to the whole plane", input: randomBatch(.float32),
            recipe: { image in
                image.cropped(
                    to: PixelRect(
                        x: 0, y: 0, width: (try? image.descriptor.width) ?? 0,
                        height: (try? image.descriptor.height) ?? 0))
            },
            reference: {
                Reference.cropped(
                    $0,
                    to: PixelRect(
                        x: 0, y: 0, width: $0.descriptor.width,
                        height: $0.descriptor.height))
            }),
        FilterCase(
            description: "rotation uint8, replicated border", input: randomBatch(.uint8),
            recipe: { $0.transformed(by: rotation, width: 23, height: 19) },
            reference: { Reference.transformed($0, by: rotation, width: 23, height: 19) }),
        FilterCase(
            description: "rotation float, zero border", input: randomBatch(.float32),
            recipe: { $0.transformed(by: rotation, width: 17, height: 29, border: .zero) },
            reference: { Reference.transformed($0, by: rotation, width: 17, height: 29, border: .zero) },
            tolerance: 1e-6),
        FilterCase(
            description: "rotation uint8, blank border, rounded down", input: randomBatch(.uint8),
            recipe: { $0.transformed(by: rotation, width: 21, height: 25, border: .blank, rounding: .down) },
            reference: {
                Reference.transformed($0, by: rotation, width: 21, height: 25, border: .blank, rounding: .down)
            }),
        // Scaled and moved, no rotation (BlazeFace's letterbox), with columns and rows off every edge.
        FilterCase(
            description: "letterbox uint8, zero border", input: randomBatch(.uint8),
            recipe: { $0.transformed(by: letterbox, width: 27, height: 22, border: .zero) },
            reference: { Reference.transformed($0, by: letterbox, width: 27, height: 22, border: .zero) }),
        // Twice the size, samples a quarter and three quarters of a pixel from each edge, inside and out.
        FilterCase(
            description: "letterbox uint8, zero border, samples within a pixel of every edge",
            input: randomBatch(.uint8),
            recipe: { $0.transformed(by: enlargement, width: 90, height: 90, border: .zero) },
            reference: { Reference.transformed($0, by: enlargement, width: 90, height: 90, border: .zero) }),
        FilterCase(
            description: "letterbox float, replicated border", input: randomBatch(.float32),
            recipe: { $0.transformed(by: letterbox, width: 19, height: 31) },
            reference: { Reference.transformed($0, by: letterbox, width: 19, height: 31) }, tolerance: 1e-6),
        FilterCase(
            description: "letterbox uint8, blank border, rounded down", input: randomBatch(.uint8),
            recipe: { $0.transformed(by: letterbox, width: 24, height: 26, border: .blank, rounding: .down) },
            reference: {
                Reference.transformed($0, by: letterbox, width: 24, height: 26, border: .blank, rounding: .down)
            }),
        FilterCase(
            description: "pyramid down uint8 (dlib's)", input: randomBatch(.uint8, channels: 3, sizes: 9...41),
            recipe: { $0.pyramidDown() }, reference: { Reference.pyramidDown($0) }),
        FilterCase(
            description: "bilinear down uint8", input: randomBatch(.uint8, sizes: 21...61),
            recipe: { $0.resized(width: 13, height: 9) },
            reference: { Reference.resizedBilinear($0, width: 13, height: 9) }),
        FilterCase(
            description: "bilinear down uint8, one partial group of 8 columns", input: randomBatch(.uint8),
            recipe: { $0.resized(width: 5, height: 3) },
            reference: { Reference.resizedBilinear($0, width: 5, height: 3) }),
        FilterCase(
            description: "bilinear up float", input: randomBatch(.float32, sizes: 5...15),
            recipe: { $0.resized(width: 31, height: 27) },
            reference: { Reference.resizedBilinear($0, width: 31, height: 27) }, tolerance: 1e-6),
        // Regions down and up, one narrower than a group of 8 columns, one flush with the atlas's corner.
        FilterCase(
            description: "atlas of bilinear sizes uint8", input: randomPlane(.uint8),
            recipe: { $0.resized(intoAtlas: atlasRegions, width: 40, height: 31) },
            reference: { Reference.atlas($0, regions: atlasRegions, width: 40, height: 31) }),
        FilterCase(
            description: "atlas of bilinear sizes float", input: randomPlane(.float32),
            recipe: { $0.resized(intoAtlas: atlasRegions, width: 40, height: 31) },
            reference: { Reference.atlas($0, regions: atlasRegions, width: 40, height: 31) }, tolerance: 1e-6),
        FilterCase(
            description: "area down uint8", input: randomBatch(.uint8, sizes: 21...61),
            recipe: { $0.resized(width: 11, height: 7, method: .area) },
            reference: { Reference.resizedArea($0, width: 11, height: 7) }),
        FilterCase(
            description: "area down uint8, a region of it", input: randomBatch(.uint8, sizes: 21...61),
            recipe: { $0.resized(width: 17, height: 13, method: .area, keeping: resizedRegion) },
            reference: { Reference.cropped(Reference.resizedArea($0, width: 17, height: 13), to: resizedRegion) }),
        FilterCase(
            description: "bilinear down float, a region of it", input: randomBatch(.float32, sizes: 21...61),
            recipe: { $0.resized(width: 17, height: 13, method: .bilinear, keeping: resizedRegion) },
            reference: { Reference.cropped(Reference.resizedBilinear($0, width: 17, height: 13), to: resizedRegion) },
            tolerance: 1e-6),
        FilterCase(
            description: "area down float", input: randomBatch(.float32, sizes: 21...61),
            recipe: { $0.resized(width: 9, height: 13, method: .area) },
            reference: { Reference.resizedArea($0, width: 9, height: 13) }, tolerance: 1e-6),
        FilterCase(
            description: "histograms 8×8×256", input: randomBatch(.uint8, sizes: 17...61),
            recipe: { $0.blockHistograms() },
            reference: { Reference.blockHistograms($0, gridColumns: 8, gridRows: 8, bins: 256) }, tolerance: 1e-6),
        FilterCase(
            description: "histograms 5×3×59, codes past the bins",
            input: randomBatch(.uint8, sizes: 9...41, maximum: 70),
            recipe: { $0.blockHistograms(gridColumns: 5, gridRows: 3, bins: 59) },
            reference: { Reference.blockHistograms($0, gridColumns: 5, gridRows: 3, bins: 59) }, tolerance: 1e-6),
        FilterCase(
            description: "integral uint8", input: randomBatch(.uint8),
            recipe: { $0.integral() }, reference: { Reference.integral($0) }),
        // Rows longer than the GPU shape's 256-wide work-group: scanned in stretches.
        FilterCase(
            description: "integral uint8, long rows", input: randomBatch(.uint8, sizes: 257...701),
            recipe: { $0.integral() }, reference: { Reference.integral($0) }),
        FilterCase(
            description: "squared integral uint8", input: randomBatch(.uint8),
            recipe: { $0.integral(.squaredSums) }, reference: { Reference.integral($0, kind: .squaredSums) }),
        FilterCase(
            description: "tilted integral uint8", input: randomBatch(.uint8),
            recipe: { $0.integral(.tiltedSums) }, reference: { Reference.integral($0, kind: .tiltedSums) }),
    ]

    static let rotation = AffineMatrix.rotation(by: 0.3, about: (x: 8.5, y: 7), movingTo: (x: 11, y: 9))
    static let letterbox = AffineMatrix(a: 1.37, b: 0, c: 2.6, d: 0, e: 1.37, f: 1.9)
    static let enlargement = AffineMatrix(a: 2, b: 0, c: 1.5, d: 0, e: 2, f: 1.5)
}
