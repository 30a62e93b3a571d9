import Foundation
import ImageKernels

extension Workload {
    /// Finding faces: ``CascadeFaceFinder`` (pyramid, Haar cascade, LBP fallback, eyes) on a made-up 640 × 480 photo
    /// of smooth shapes over grain (the device it picks here is the one that detects faster in real photos,
    /// `Benchmarks/RESULTS.md`); timed so that `auto` detects on the faster device (``Device/best(for:)``).
    public static let detection = Workload(name: "detection", version: 2) { context in
        let finder = try CascadeFaceFinder(context: context), photo = try madeUpPhoto()
        return { _ = try finder.faces(in: photo) }
    }

    /// Finding faces with BlazeFace's full-range model (a network of small convolutions, which devices run
    /// at other relative speeds than the cascades) on the same made-up photo.
    public static let blazeFace = Workload(name: "blazeface", version: 1) { context in
        let detector = try BlazeFaceDetector(model: .fullRange, context: context), photo = try madeUpPhoto()
        return { _ = try detector.faces(in: photo) }
    }

    /// The detection workloads' gray 640 × 480 photo.
    private static func madeUpPhoto() throws -> PixelBuffer {
        let width = 640, height = 480
        var grain = Workload.Noise()
        let pixels = (0..<width * height).map { index -> UInt8 in
            let x = Double(index % width), y = Double(index / width)
            let waves: Double = sin(x / 23) * cos(y / 31) + sin((x + y) / 47)
            let ripples: Double = cos(x / 7 + sin(y / 11))
            return UInt8(clamping: Int(128 + 60 * waves + 40 * ripples) + Int(grain.byte() >> 4) - 8)
        }
        return try PixelBuffer(width: width, height: height, values: pixels)
    }
}
