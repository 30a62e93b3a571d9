import ImageKernelsCL

/// Converts between element types: `uint8` v becomes the float v/255; a float v becomes the
/// `uint8` round(v·255), saturated.
public struct ElementConversion: Filter {
    public let target: ElementType
    public var name: String { "convert to \(target.rawValue)" }

    public init(to target: ElementType) {
        self.target = target
    }

    public func outputDescriptor(for inputs: [ImageDescriptor]) throws(RenderError) -> ImageDescriptor {
        let input = try singleInput(inputs)
        guard
            [(ElementType.uint8, ElementType.float32), (.float32, .uint8)].contains(where: {
                $0 == (input.elementType, target)
            })
        else {
            throw .invalidInput(
                filter: name, reason: "converts between uint8 and float32 only, not \(input.elementType.rawValue)")
        }
        return input.with(elementType: target)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let count = encoder.output.descriptor.elementCount
        switch (encoder.input.descriptor.elementType, target) {
        case (.uint8, .float32):
            try encoder.launch(
                Self.toFloat,
                Arguments(
                    src: .init(encoder.input), dst: .init(encoder.output), scale: 1 / 255,
                    count: Int32(count)), over: [count])
        case (.float32, .uint8):
            try encoder.launch(
                Self.toUInt8,
                Arguments(
                    src: .init(encoder.input), dst: .init(encoder.output), scale: 255,
                    count: Int32(count)), over: [count])
        default:
            throw .invalidInput(
                filter: name,
                reason: "cannot convert \(encoder.input.descriptor.elementType.rawValue) to \(target.rawValue)")
        }
    }

    struct Arguments<Source: KernelElement, Target: KernelElement>: KernelArguments {
        var src: KernelBuffer<Source>
        var dst: KernelMutableBuffer<Target>
        var scale: Float
        var count: Int32
    }

    static let source = KernelSource(name: "ElementConversion", bytes: ImageKernelsCL.elementConversion)

    static let toFloat = Kernel<Arguments<UInt8, Float>>("conversion_to_float", in: source) { arguments, _ in
        CPUParallel.forEachRange(Int(arguments.count)) { range in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for i in range { dst[i] = Float(src[i]) * arguments.scale }
        }
    }

    static let toUInt8 = Kernel<Arguments<Float, UInt8>>("conversion_to_uint8", in: source) { arguments, _ in
        CPUParallel.forEachRange(Int(arguments.count)) { range in
            let src = arguments.src.elements, dst = arguments.dst.elements
            for i in range { dst[i] = UInt8(rounding: src[i] * arguments.scale) }
        }
    }
}

extension Image {
    /// This image with elements of `type` (itself when it already has them).
    public func converted(to type: ElementType) -> Image {
        if (try? descriptor.elementType) == type { return self }
        return applying(ElementConversion(to: type))
    }
}
