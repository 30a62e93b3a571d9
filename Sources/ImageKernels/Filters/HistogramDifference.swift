import ImageKernelsCL

/// Per-bin chi-square terms between two histogram images (rows = blocks, columns = bins): the
/// histogram-difference kernel of the reference design. The first input ("expected") is either one
/// plane, compared with every plane of the second ("training"), or as many planes as it has.
/// The output has the training image's shape; ``BlockSum`` then gives one distance per block.
public struct HistogramDifference: Filter {
    /// Which chi-square terms to compute.
    public enum Form: String, Sendable, CaseIterable {
        /// (e − t)² / (e + t), terms with e + t = 0 skipped.
        case symmetric
        /// (e − t)² / e, terms with e = 0 skipped: the reference system's form.
        case asymmetric
    }

    public let form: Form
    public var name: String { "χ² terms (\(form.rawValue))" }

    public init(form: Form = .symmetric) {
        self.form = form
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        guard inputs.count == 2 else {
            throw .invalidInput(filter: name, reason: "takes two inputs, got \(inputs.count)")
        }
        let expected = inputs[0], training = inputs[1]
        guard expected.elementType == .float32, training.elementType == .float32,
            expected.width == training.width, expected.height == training.height,
            expected.planeCount == 1 || expected.planeCount == training.planeCount
        else {
            throw .invalidInput(
                filter: name, reason: "needs float histogram images of one shape, got \(expected) and \(training)")
        }
        return training
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let expected = encoder.inputs[0], training = encoder.inputs[1]
        let count = training.descriptor.elementCount
        try encoder.launch(
            form == .asymmetric ? Self.asymmetric : Self.symmetric,
            Arguments(
                expected: .init(expected), training: .init(training), terms: .init(encoder.output),
                planeSize: Int32(training.descriptor.planePixelCount),
                expectedPlanes: Int32(expected.descriptor.planeCount), count: Int32(count)),
            over: [count])
    }

    struct Arguments: KernelArguments {
        var expected: KernelBuffer<Float>
        var training: KernelBuffer<Float>
        var terms: KernelMutableBuffer<Float>
        var planeSize: Int32
        var expectedPlanes: Int32
        var count: Int32
    }

    static let source = KernelSource(name: "HistogramDifference", bytes: ImageKernelsCL.histogramDifference)
    static let symmetric = kernel(asymmetric: false)
    static let asymmetric = kernel(asymmetric: true)

    private static func kernel(asymmetric: Bool) -> Kernel<Arguments> {
        Kernel("histogram_difference", in: source, options: asymmetric ? "-DASYMMETRIC" : "") { arguments, _ in
            let planeSize = Int(arguments.planeSize), expectedPlanes = Int(arguments.expectedPlanes)
            CPUParallel.forEachRange(Int(arguments.count)) { range in
                let expected = arguments.expected.elements, training = arguments.training.elements
                let terms = arguments.terms.elements
                for i in range {
                    let e = expected[(i / planeSize % expectedPlanes) * planeSize + i % planeSize], t = training[i]
                    let d = e - t
                    if asymmetric {
                        terms[i] = e > 0 ? d * d / e : 0
                    } else {
                        let s = e + t
                        terms[i] = s > 0 ? d * d / s : 0
                    }
                }
            }
        }
    }
}

extension Image {
    /// Per-bin chi-square terms of `expected` (one plane, or one per plane) against this histogram image.
    public func chiSquareTerms(expected: Image, form: HistogramDifference.Form = .symmetric) -> Image {
        Image(applying: HistogramDifference(form: form), to: [expected, self])
    }
}
