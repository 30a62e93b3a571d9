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
        guard [(ElementType.uint8, ElementType.float32), (.float32, .uint8)].contains(where: { $0 == (input.elementType, target) }) else {
            throw .invalidInput(filter: name, reason: "converts between uint8 and float32 only, not \(input.elementType.rawValue)")
        }
        return input.with(elementType: target)
    }

    public func encode(_ encoder: KernelEncoder) throws(RenderError) {
        let count = encoder.output.descriptor.elementCount
        switch (encoder.input.descriptor.elementType, target) {
        case (.uint8, .float32):
            try encoder.launchPerElement(Self.toFloat, [.image(encoder.input), .image(encoder.output),
                                                        .float32(1 / 255), .int(count)], count: count)
        case (.float32, .uint8):
            try encoder.launchPerElement(Self.toUInt8, [.image(encoder.input), .image(encoder.output),
                                                        .float32(255), .int(count)], count: count)
        default:
            throw .invalidInput(filter: name, reason: "cannot convert \(encoder.input.descriptor.elementType.rawValue) to \(target.rawValue)")
        }
    }

    static let toFloat = Kernel(.conversionToFloat) { invocation in
        let scale = invocation.float(2)
        CPUParallel.forEachRange(invocation.int(3)) { range in
            let src = invocation.pointer(0, as: UInt8.self), dst = invocation.pointer(1, as: Float.self)
            for i in range { dst[i] = Float(src[i]) * scale }
        }
    }

    static let toUInt8 = Kernel(.conversionToUInt8) { invocation in
        let scale = invocation.float(2)
        CPUParallel.forEachRange(invocation.int(3)) { range in
            let src = invocation.pointer(0, as: Float.self), dst = invocation.pointer(1, as: UInt8.self)
            for i in range { dst[i] = UInt8(rounding: src[i] * scale) }
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
