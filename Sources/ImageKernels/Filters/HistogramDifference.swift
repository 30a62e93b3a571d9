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
        guard inputs.count == 2 else { throw .invalidInput(filter: name, reason: "takes two inputs, got \(inputs.count)") }
        let expected = inputs[0], training = inputs[1]
        guard expected.elementType == .float32, training.elementType == .float32,
              expected.width == training.width, expected.height == training.height,
              expected.planeCount == 1 || expected.planeCount == training.planeCount else {
            throw .invalidInput(filter: name, reason: "needs float histogram images of one shape, got \(expected) and \(training)")
        }
        return training
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let expected = encoder.inputs[0], training = encoder.inputs[1]
        let count = training.descriptor.elementCount
        let kernel = Kernel(.histogramDifference, options: form == .asymmetric ? "-DASYMMETRIC" : "",
                            cpu: form == .asymmetric ? Self.terms(asymmetric: true) : Self.terms(asymmetric: false))
        try encoder.launchPerElement(kernel, [.image(expected), .image(training), .image(encoder.output),
                                              .int(training.descriptor.planePixelCount),
                                              .int(expected.descriptor.planeCount), .int(count)], count: count)
    }

    private static func terms(asymmetric: Bool) -> @Sendable (KernelInvocation) -> Void {
        { invocation in
            let planeSize = invocation.int(3), expectedPlanes = invocation.int(4)
            CPUParallel.forEachRange(invocation.int(5)) { range in
                let expected = invocation.pointer(0, as: Float.self), training = invocation.pointer(1, as: Float.self)
                let terms = invocation.pointer(2, as: Float.self)
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
