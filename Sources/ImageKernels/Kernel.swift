import Kernels

/// OpenCL C source and the build options that specialise it; programs are built once per
/// (device, program) and cached.
public struct KernelProgram: Hashable, Sendable {
    /// A name for logs and build errors.
    public let name: String
    /// OpenCL C source text.
    public let source: String
    /// Build options, typically `-D` definitions (`-DPIXEL=float`).
    public let options: String

    public init(name: String, source: String, options: String = "") {
        self.name = name
        self.source = source
        self.options = options
    }

    /// A program from one of the framework's own `.cl` files.
    public init(_ file: KernelSourceFile, options: String = "") {
        self.init(name: file.rawValue, source: file.source, options: options)
    }

    /// Hashes the name, options and the source's length, not its whole text: programs are looked up on
    /// every launch, and equality still compares the text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(options)
        hasher.combine(source.utf8.count)
    }
}

/// One kernel entry point with its CPU twin: the OpenCL function runs on OpenCL devices, the Swift
/// closure on the CPU device, and both compute the same result over the same arguments.
///
/// ```swift
/// let invert = Kernel(
///     program: KernelProgram(name: "invert", source: """
///         __kernel void invert(__global const float* src, __global float* dst, int count) {
///             int i = get_global_id(0);
///             if (i < count) dst[i] = 1.0f - src[i];
///         }
///         """),
///     entryPoint: "invert"
/// ) { invocation in
///     let src = invocation.pointer(0, as: Float.self), dst = invocation.pointer(1, as: Float.self)
///     for i in 0..<invocation.int(2) { dst[i] = 1 - src[i] }
/// }
/// ```
public struct Kernel: Sendable {
    public let program: KernelProgram
    public let entryPoint: String
    /// The CPU implementation; it receives the launch's arguments and covers the whole global size.
    public let cpu: @Sendable (KernelInvocation) -> Void
    /// True for the framework's own kernels: if one fails to build, a context falls back to the CPU.
    let isBuiltIn: Bool

    public init(program: KernelProgram, entryPoint: String, cpu: @escaping @Sendable (KernelInvocation) -> Void) {
        self.program = program
        self.entryPoint = entryPoint
        self.cpu = cpu
        self.isBuiltIn = false
    }

    /// A kernel from the framework's own sources, named by the typed index of the `Kernels` target.
    public init(_ function: KernelFunction, options: String = "", cpu: @escaping @Sendable (KernelInvocation) -> Void) {
        self.program = KernelProgram(function.sourceFile, options: options)
        self.entryPoint = function.rawValue
        self.cpu = cpu
        self.isBuiltIn = true
    }
}

/// A kernel argument, in the order of the OpenCL function's parameters.
public enum KernelArgument: Sendable {
    /// A device buffer (`__global T*`).
    case buffer(any DeviceBuffer)
    /// An `int` parameter.
    case int32(Int32)
    /// A `float` parameter.
    case float32(Float)
    /// A small read-only array of floats (`__constant float*`), copied at launch.
    case floats([Float])
    /// A small read-only array of ints (`__constant int*`), copied at launch.
    case ints([Int32])
    /// A small read-only byte table (`__constant uchar*`), copied at launch.
    case bytes([UInt8])
    /// Work-group local scratch memory (`__local`), in bytes.
    case local(byteCount: Int)

    /// An `int` from a Swift `Int`.
    public static func int(_ value: Int) -> KernelArgument { .int32(Int32(truncatingIfNeeded: value)) }
    /// The buffer of a device image.
    public static func image(_ image: DeviceImage) -> KernelArgument { .buffer(image.buffer) }
}

/// The arguments of a kernel launch as the CPU twin sees them.
public struct KernelInvocation: @unchecked Sendable {
    /// The launch's global work size (1 to 3 dimensions).
    public let globalSize: [Int]
    let arguments: [Argument]

    enum Argument {
        case pointer(UnsafeMutableRawPointer)
        case int(Int32)
        case float(Float)
        case none
    }

    /// Argument `index` (a buffer or an array) as a typed pointer.
    public func pointer<T>(_ index: Int, as type: T.Type) -> UnsafeMutablePointer<T> {
        guard case .pointer(let raw) = arguments[index] else {
            preconditionFailure("kernel argument \(index) is not a buffer")
        }
        return raw.assumingMemoryBound(to: type)
    }

    /// Argument `index` (an `int`) as a Swift `Int`.
    public func int(_ index: Int) -> Int {
        guard case .int(let value) = arguments[index] else {
            preconditionFailure("kernel argument \(index) is not an int")
        }
        return Int(value)
    }

    /// Argument `index` (a `float`).
    public func float(_ index: Int) -> Float {
        guard case .float(let value) = arguments[index] else {
            preconditionFailure("kernel argument \(index) is not a float")
        }
        return value
    }
}
