import Kernels

/// A Swift element type that CPU kernels can be generic over: `UInt8` or `Float`.
public protocol PixelElement: Sendable {
    /// The element type this Swift type stores.
    static var elementType: ElementType { get }
    /// The value as a float, unscaled.
    var floatValue: Float { get }
    /// A value from a float the way OpenCL's `convert_uchar_sat_rte` does for `UInt8`
    /// (round half to even, saturate, NaN to 0) and unchanged for `Float`.
    init(rounding value: Float)
}

extension UInt8: PixelElement {
    public static var elementType: ElementType { .uint8 }
    @inline(__always) public var floatValue: Float { Float(self) }
    @inline(__always) public init(rounding value: Float) {
        let rounded = value.rounded(.toNearestOrEven)
        self = rounded.isNaN ? 0 : UInt8(Swift.min(Swift.max(rounded, 0), 255))
    }
}

extension Float: PixelElement {
    public static var elementType: ElementType { .float32 }
    @inline(__always) public var floatValue: Float { self }
    @inline(__always) public init(rounding value: Float) { self = value }
}

extension ElementType {
    /// Build options that set the `PIXEL` type of kernels written for either element type.
    var programOptions: String {
        switch self {
        case .uint8: "-DPIXEL=uchar"
        case .float32: "-DPIXEL=float -DPIXEL_FLOAT"
        case .uint32: "-DPIXEL=uint"
        }
    }
}

extension Kernel {
    /// A built-in kernel for `PIXEL`-typed sources, with the CPU twin for that element type (filters
    /// using it accept only `uint8` and `float32`; see ``Filter/singleInput(_:oneOf:)``).
    init(_ function: KernelFunction, pixelType: ElementType,
         uint8: @escaping @Sendable (KernelInvocation) -> Void,
         float32: @escaping @Sendable (KernelInvocation) -> Void) {
        self.init(function, options: pixelType.programOptions, cpu: pixelType == .uint8 ? uint8 : float32)
    }
}
