import BenchmarkSupport
import ImageKernels
import TestSupport

/// A plain NCHW float tensor for the reference layers: values and shape, nothing else.
struct Tensor: Sendable {
    var batch: Int, channels: Int, height: Int, width: Int
    var values: [Float]

    init(batch: Int, channels: Int, height: Int, width: Int, values: [Float]) {
        (self.batch, self.channels, self.height, self.width, self.values) = (batch, channels, height, width, values)
    }

    init(batch: Int, channels: Int, height: Int, width: Int) {
        self.init(
            batch: batch, channels: channels, height: height, width: width,
            values: [Float](repeating: 0, count: batch * channels * height * width))
    }

    /// Uniform in −1..<1.
    static func random(batch: Int = 1, channels: Int, height: Int, width: Int, using generator: inout SeededGenerator)
        -> Tensor
    {
        Tensor(
            batch: batch, channels: channels, height: height, width: width,
            values: (0..<batch * channels * height * width).map { _ in Float.random(in: -1..<1, using: &generator) })
    }

    subscript(n: Int, c: Int, y: Int, x: Int) -> Float {
        get { values[((n * channels + c) * height + y) * width + x] }
        set { values[((n * channels + c) * height + y) * width + x] = newValue }
    }

    /// The tensor as a one-plane parameter image `width` wide (for filters, biases, weights).
    func parameters(width: Int) -> Image {
        Image(try! PixelBuffer(width: width, height: values.count / width, values: values))
    }

    var image: Image {
        Image(try! PixelBuffer(width: width, height: height, channels: channels, batch: batch, values: values))
    }

    init(_ pixels: PixelBuffer) {
        let d = pixels.descriptor
        self.init(batch: d.batch, channels: d.channels, height: d.height, width: d.width, values: pixels.floatValues)
    }

    /// The largest |a − b| / max(1, |b|).
    func relativeError(to expected: Tensor) -> Float {
        guard (batch, channels, height, width) == (expected.batch, expected.channels, expected.height, expected.width)
        else { return .infinity }
        return zip(values, expected.values).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
    }
}
