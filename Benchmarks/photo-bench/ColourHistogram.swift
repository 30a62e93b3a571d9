import ImageKernels

/// The baseline photo managers started with: a photo's HSV colour histogram (8 × 8 × 8 bins, normalised),
/// compared by the chi-square distance.
struct ColourHistogram {
    let bins: [Float]

    /// The histogram of a uint8 RGB (or grey) photo.
    init(_ photo: PixelBuffer) {
        let rgb = photo.rgb(), plane = rgb.descriptor.planePixelCount
        var bins = [Float](repeating: 0, count: 512)
        rgb.bytes.withUnsafeBufferPointer { bytes in
            for i in 0..<plane {
                let r = Float(bytes[i]) / 255, g = Float(bytes[plane + i]) / 255, b = Float(bytes[2 * plane + i]) / 255
                let high = max(r, g, b), low = min(r, g, b), range = high - low
                var hue: Float = 0
                if range > 0 {
                    hue =
                        high == r ? (g - b) / range : high == g ? 2 + (b - r) / range : 4 + (r - g) / range
                    hue = (hue / 6).truncatingRemainder(dividingBy: 1)
                    if hue < 0 { hue += 1 }
                }
                let saturation = high > 0 ? range / high : 0
                func bin(_ value: Float) -> Int { min(7, Int(value * 8)) }
                bins[bin(hue) * 64 + bin(saturation) * 8 + bin(high)] += 1
            }
        }
        self.bins = bins.map { $0 / Float(plane) }
    }

    /// Σ (a − b)² ÷ (a + b) over bins where either is non-zero.
    func distance(to other: ColourHistogram) -> Float {
        zip(bins, other.bins).reduce(0) { sum, pair in
            let total = pair.0 + pair.1
            return total > 0 ? sum + (pair.0 - pair.1) * (pair.0 - pair.1) / total : sum
        }
    }
}
