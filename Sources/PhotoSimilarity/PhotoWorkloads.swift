import ImageKernels

/// The kinds of photo work whose device `auto` picks by timing them (``Device/best(for:)``), each timed on
/// made-up inputs of a typical size.
extension Workload {
    /// Printing photos: a batch of 8 VGA photos through the resize and EfficientNet-Lite0 (the model from
    /// the model cache).
    public static let photoPrinting = Workload(name: "photo printing", version: 1) { context in
        let printer = try PhotoPrinter(context: context)
        var generator = Workload.Noise()
        let photos = try (0..<8).map { _ in
            try PixelBuffer(
                width: 640, height: 480, channels: 3, values: (0..<640 * 480 * 3).map { _ in generator.byte() })
        }
        return { _ = try printer.prints(of: photos) }
    }
}
