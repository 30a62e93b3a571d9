/// A Swift element type that CPU kernels can be generic over: `UInt8` or `Float`.
public protocol PixelElement: KernelElement {
    /// The element type this Swift type stores.
    static var elementType: ElementType { get }
    /// The value as a float, unscaled.
    var floatValue: Float { get }
    /// A value from a float the way OpenCL's `convert_uchar_sat_rte` does for `UInt8`
    /// (round half to even, saturate, NaN to 0) and unchanged for `Float`.
    init(rounding value: Float)
    /// The value rounded towards zero and saturated for integer types (dlib's chips); floats are kept.
    init(roundingDown value: Float)
}

extension UInt8: PixelElement {
    public static var elementType: ElementType { .uint8 }
    @inline(__always) public var floatValue: Float { Float(self) }
    @inline(__always) public init(rounding value: Float) {
        self = Self(saturating: value.rounded(.toNearestOrEven))
    }

    @inline(__always) public init(roundingDown value: Float) {
        self = Self(saturating: value.rounded(.towardZero))
    }

    /// A whole `value` clamped to 0...255, NaN as 0: the comparisons, false for NaN, bound it before the
    /// conversion, so the conversion needs no check of its own.
    @inline(__always) private init(saturating value: Float) {
        self = value > 0 ? (value < 255 ? UInt8(truncatingIfNeeded: Int32(value)) : 255) : 0
    }
}

extension Float: PixelElement {
    public static var elementType: ElementType { .float32 }
    @inline(__always) public var floatValue: Float { self }
    @inline(__always) public init(rounding value: Float) { self = value }
    @inline(__always) public init(roundingDown value: Float) { self = value }
}

extension PixelElement {
    /// Build options that set the `PIXEL` type of kernels written for either element type:
    /// `-DPIXEL=uchar`, or `-DPIXEL=float -DPIXEL_FLOAT`.
    public static var pixelOptions: String {
        "-DPIXEL=\(openCLName)" + (elementType == .float32 ? " -DPIXEL_FLOAT" : "")
    }
}

extension Filter {
    /// Runs `uint8` or `float32` after an input's element type: for filters whose kernels are written for
    /// either (`PIXEL`). Other element types are refused.
    func byPixelType(
        _ type: ElementType, uint8: () throws(RenderError) -> Void,
        float32: () throws(RenderError) -> Void
    ) throws(RenderError) {
        switch type {
        case .uint8: try uint8()
        case .float32: try float32()
        case .uint32: throw .invalidInput(filter: name, reason: "takes uint8 or float32 images, not uint32")
        }
    }
}
