import Foundation
import ImageKernels

extension Workload {
    /// Finding faces: ``FaceFinder`` (pyramid, Haar cascade, LBP fallback, eyes) on a made-up 640 × 480 photo
    /// of smooth shapes over grain, whose windows pass the cascades' early stages about as often as a
    /// photo's do; timed so that `auto` detects on the device that does it fastest (``Device/best(for:)``).
    public static let detection = Workload(name: "detection", version: 1) { context in
        let finder = try FaceFinder(context: context)
        let width = 640, height = 480
        var state: UInt32 = 12_345
        let pixels = (0..<width * height).map { index -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            let x = Double(index % width), y = Double(index / width)
            let waves: Double = sin(x / 23) * cos(y / 31) + sin((x + y) / 47)
            let ripples: Double = cos(x / 7 + sin(y / 11))
            return UInt8(clamping: Int(128 + 60 * waves + 40 * ripples) + Int(state >> 28) - 8)
        }
        let photo = try PixelBuffer(width: width, height: height, values: pixels)
        return { _ = try finder.faces(in: photo) }
    }
}
