import Foundation

/// One kernel, declared once: its OpenCL C function (entry point in a source, built with options), the
/// struct of its arguments, its schedule per kind of device, and its CPU twin, which computes the same
/// result from the same arguments in Swift.
///
/// The framework's kernels and your own are declared the same way, Core Image's `CIKernel` style:
///
/// ```swift
/// struct InvertArguments: KernelArguments {
///     var src: KernelBuffer<Float>
///     var dst: KernelMutableBuffer<Float>
///     var count: Int32
/// }
///
/// let invert = Kernel<InvertArguments>("invert", in: KernelSource(name: "Invert", text: """
///     __kernel void invert(__global const float* src, __global float* dst, int count) {
///         int i = get_global_id(0);
///         if (i < count) dst[i] = 1.0f - src[i];
///     }
///     """)) { arguments, grid in
///     let src = arguments.src.elements, dst = arguments.dst.elements
///     for i in 0..<Int(arguments.count) { dst[i] = 1 - src[i] }
/// }
/// ```
public struct Kernel<Arguments: KernelArguments>: KernelDeclaration {
    /// The OpenCL C function's name.
    public let entryPoint: String
    public let source: KernelSource
    /// Build options, typically `-D` definitions (`-DPIXEL=float`).
    public let options: String
    public let schedules: KernelSchedules
    /// The CPU implementation: it covers the whole grid, parallelising itself (see ``CPUParallel``).
    public let cpu: @Sendable (Arguments, KernelGrid) -> Void
    /// What launches of this kernel value have worked out once: its check, its programs.
    let memo = KernelMemo()

    public init(
        _ entryPoint: String, in source: KernelSource, options: String = "",
        schedules: KernelSchedules = .perElement, cpu: @escaping @Sendable (Arguments, KernelGrid) -> Void
    ) {
        self.entryPoint = entryPoint
        self.source = source
        self.options = options
        self.schedules = schedules
        self.cpu = cpu
    }

    /// The parameters `Arguments` declares.
    public func declaredParameters() throws(RenderError) -> [KernelParameter] {
        try KernelSignature.parameters(of: Arguments.self)
    }

    /// The program a device builds for this kernel under `schedule`: built with `-DVECTOR_WIDTH=n`, and
    /// for a cooperative schedule with `-DCOOPERATIVE` and the work-group's size as `-DGROUP_SIZE_0=…`,
    /// `-DGROUP_SIZE_1=…` (local arrays are sized from them).
    func program(_ schedule: KernelSchedule) -> KernelProgram {
        memo.program(schedule) {
            var definitions = " -DVECTOR_WIDTH=\(schedule.vectorWidth)"
            if schedule.cooperative {
                definitions += " -DCOOPERATIVE"
                for (dimension, size) in schedule.workGroup.enumerated() {
                    definitions += " -DGROUP_SIZE_\(dimension)=\(size)"
                }
            }
            return KernelProgram(source: source, options: options + definitions)
        }
    }

    /// Throws unless the signature matches; checked once per process for each source, options and
    /// arguments type, and once per kernel value after that without a look-up.
    func checkSignatureOnce() throws(RenderError) {
        guard !memo.isChecked else { return }
        try CheckedSignatures.shared.check(self)
        memo.isChecked = true
    }
}

/// Per-kernel-value state that launches share (kernels are usually `static let`s): a launch costs
/// microseconds, and these would otherwise be rebuilt or looked up by strings every time.
final class KernelMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var checked = false
    private var programs: [KernelSchedule: KernelProgram] = [:]

    var isChecked: Bool {
        get { lock.withLock { checked } }
        set { lock.withLock { checked = newValue } }
    }

    func program(_ schedule: KernelSchedule, make: () -> KernelProgram) -> KernelProgram {
        lock.withLock {
            if let program = programs[schedule] { return program }
            let program = make()
            programs[schedule] = program
            return program
        }
    }
}

/// What every ``Kernel`` is, whatever its arguments: for listing a module's kernels and checking them.
public protocol KernelDeclaration: Sendable {
    var entryPoint: String { get }
    var source: KernelSource { get }
    var options: String { get }
    /// The parameters its arguments struct declares, in order.
    func declaredParameters() throws(RenderError) -> [KernelParameter]
}

extension KernelDeclaration {
    /// Throws unless the arguments struct matches the source's parameter list in names, order and types.
    /// Runs before a kernel's first launch in each process, on every device.
    public func checkSignature() throws(RenderError) {
        let functions = try KernelSignature.functions(in: source.text, options: options)
        guard let parameters = functions[entryPoint] else {
            throw .kernelSignature(kernel: entryPoint, reason: "\(source.name) has no kernel of that name")
        }
        try KernelSignature.check(try declaredParameters(), against: parameters, kernel: entryPoint)
    }
}

/// Kernels whose signatures have been checked in this process, by entry point, source and options.
final class CheckedSignatures: @unchecked Sendable {
    static let shared = CheckedSignatures()
    private struct Key: Hashable {
        let entryPoint: String
        let program: KernelProgram
        let arguments: ObjectIdentifier
    }
    private let lock = NSLock()
    private var checked: Set<Key> = []

    func check<Arguments>(_ kernel: Kernel<Arguments>) throws(RenderError) {
        let key = Key(
            entryPoint: kernel.entryPoint, program: KernelProgram(source: kernel.source, options: kernel.options),
            arguments: ObjectIdentifier(Arguments.self))
        guard !lock.withLock({ checked.contains(key) }) else { return }
        try kernel.checkSignature()
        _ = lock.withLock { checked.insert(key) }
    }
}
