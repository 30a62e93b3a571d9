import ImageKernels
import Testing

/// Float results stored as `uint8`: rounded, saturated at 0 and 255, NaN as 0, against the plain rule.
@Suite struct PixelElementTests {
    static let values: [Float] = [
        -.infinity, -1e9, -256, -0.6, -0.5, -0.4, 0, 0.4, 0.5, 0.6, 1.5, 2.5, 127.5, 254.4, 254.5, 254.6, 255,
        255.4, 255.5, 256, 300, 1e9, .greatestFiniteMagnitude, .infinity, .nan, -.nan,
    ]

    static func plain(_ value: Float, _ rule: FloatingPointRoundingRule) -> UInt8 {
        value.isNaN ? 0 : UInt8(min(max(value.rounded(rule), 0), 255))
    }

    @Test(arguments: values)
    func roundingSaturates(_ value: Float) {
        #expect(UInt8(rounding: value) == Self.plain(value, .toNearestOrEven), "\(value)")
        #expect(UInt8(roundingDown: value) == Self.plain(value, .towardZero), "\(value)")
    }
}
