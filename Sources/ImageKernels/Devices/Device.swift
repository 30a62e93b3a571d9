import Foundation

/// Where kernels run: an OpenCL device or the CPU device.
///
/// Get one with ``Device/best`` (honours `IMAGEKERNELS_DEVICE=auto|cpu|opencl|gpu`), ``Device/cpu`` or
/// ``Device/select(_:)``; hand it to a ``RenderContext``.
public final class Device: Sendable, CustomStringConvertible {
    /// The device's own name (OpenCL's `CL_DEVICE_NAME`, or "CPU").
    public let name: String
    /// What kind of device this is.
    public let kind: DeviceKind
    /// What the device offers.
    public let capabilities: DeviceCapabilities
    let backend: any DeviceBackend

    init(name: String, kind: DeviceKind, capabilities: DeviceCapabilities, backend: any DeviceBackend) {
        self.name = name
        self.kind = kind
        self.capabilities = capabilities
        self.backend = backend
    }

    public var description: String { "\(kind) · \(name)" }
}

/// The kind of a device.
public enum DeviceKind: Sendable, Equatable, CustomStringConvertible {
    /// The CPU device: every kernel's Swift twin over `DispatchQueue.concurrentPerform`.
    case cpu
    /// An OpenCL device of this type.
    case openCL(OpenCLDeviceType)

    public var description: String {
        switch self {
        case .cpu: "cpu"
        case .openCL(let type): "opencl-\(type.rawValue)"
        }
    }
}

/// OpenCL's device types.
public enum OpenCLDeviceType: String, Sendable {
    case gpu, cpu, accelerator, other
}

/// What a device offers, for listings and for choosing work sizes.
public struct DeviceCapabilities: Sendable, Equatable {
    public var platform: String
    public var vendor: String
    public var version: String
    public var computeUnits: Int
    public var globalMemoryBytes: Int
    public var localMemoryBytes: Int
    public var maxWorkGroupSize: Int
}

/// Which device to use.
public enum DeviceChoice: String, Sendable, CaseIterable {
    /// An OpenCL GPU if there is one, else the CPU device: an OpenCL CPU device runs on the cores the
    /// CPU twins use, and loses to them at most work measured here. For a named kind of work, `auto`
    /// times the devices instead (``Device/best(for:)``).
    case auto
    /// The CPU device.
    case cpu
    /// The first OpenCL device, preferring a GPU.
    case opencl
    /// An OpenCL GPU.
    case gpu
}

/// Memory on a device. Created by a ``RenderContext``; filters see it through ``DeviceImage``.
public protocol DeviceBuffer: AnyObject, Sendable {
    var byteCount: Int { get }
}

/// The small interface each backend implements.
protocol DeviceBackend: Sendable {
    func makeBuffer(byteCount: Int) throws(RenderError) -> any DeviceBuffer
    /// A buffer over `memory` itself, or nil where the device cannot read host memory in place.
    func makeBuffer(sharing memory: HostMemory) -> (any DeviceBuffer)?
    func upload(_ bytes: UnsafeRawBufferPointer, to buffer: any DeviceBuffer, offset: Int) throws(RenderError)
    func download(_ buffer: any DeviceBuffer, byteCount: Int) throws(RenderError) -> [UInt8]
    /// Runs a kernel over `grid` (its size and the schedule in force); the arguments' buffers belong to
    /// this backend.
    func launch<Arguments>(_ kernel: Kernel<Arguments>, _ arguments: Arguments, grid: KernelGrid) throws(RenderError)
}

extension Device {
    /// The CPU device.
    public static let cpu = Device(
        name: "CPU (\(ProcessInfo.processInfo.activeProcessorCount) threads)", kind: .cpu,
        capabilities: DeviceCapabilities(
            platform: "Swift", vendor: "", version: "", computeUnits: ProcessInfo.processInfo.activeProcessorCount,
            globalMemoryBytes: Int(clamping: ProcessInfo.processInfo.physicalMemory), localMemoryBytes: 0,
            maxWorkGroupSize: 1),
        backend: CPUBackend())

    /// Every OpenCL device of every platform, discovered once per process.
    public static func openCLDevices() throws(RenderError) -> [Device] {
        try discoveredOpenCLDevices.get()
    }

    private static let discoveredOpenCLDevices: Result<[Device], RenderError> = Result { () throws(RenderError) in
        try OpenCLBackend.discoverDevices()
    }

    /// The device for a choice; fails when that kind of device is not there (`auto` then says why on
    /// stderr and takes the CPU device). OpenCL devices honour `IMAGEKERNELS_FAIL_BUILDS` (see
    /// ``withFailingBuilds(of:)``).
    public static func select(_ choice: DeviceChoice) throws(RenderError) -> Device {
        let device: Device
        switch choice {
        case .cpu:
            return .cpu
        case .auto:
            let devices: [Device]
            do { devices = try openCLDevices() } catch {
                log("\(error); using the CPU device")
                return .cpu
            }
            guard let gpu = devices.first(where: { $0.kind == .openCL(.gpu) }) else { return .cpu }
            device = gpu
        case .opencl:
            device = try preferredOpenCLDevice()
        case .gpu:
            guard let gpu = try openCLDevices().first(where: { $0.kind == .openCL(.gpu) }) else {
                throw .deviceUnavailable("no OpenCL GPU")
            }
            device = gpu
        }
        guard device.kind != .cpu, let failing = ProcessInfo.processInfo.environment[failingBuildsVariable] else {
            return device
        }
        return device.withFailingBuilds(of: Set(failing.split(separator: ",").map(String.init)))
    }

    private static func preferredOpenCLDevice() throws(RenderError) -> Device {
        let devices = try openCLDevices()
        guard let device = devices.first(where: { $0.kind == .openCL(.gpu) }) ?? devices.first else {
            throw .deviceUnavailable("no OpenCL device")
        }
        return device
    }

    /// The environment variable that chooses the device of ``best``: `auto`, `cpu`, `opencl` or `gpu`.
    public static let environmentVariable = "IMAGEKERNELS_DEVICE"

    /// The environment variable naming programs (comma-separated) that OpenCL devices fail to build, for
    /// testing the fallback to the CPU device from outside a process.
    public static let failingBuildsVariable = "IMAGEKERNELS_FAIL_BUILDS"

    /// The environment variable that, set to 1, reports what is otherwise kept quiet: the OpenCL compiler's
    /// build logs and each kind of work's device calibration.
    public static let verboseVariable = "IMAGEKERNELS_VERBOSE"

    /// Whether `IMAGEKERNELS_VERBOSE` is 1 (read each time, so that a tool can set it after starting).
    public static var isVerbose: Bool { ProcessInfo.processInfo.environment[verboseVariable] == "1" }

    /// The device contexts get when none is named: `IMAGEKERNELS_DEVICE`'s choice, by default `auto` (an
    /// OpenCL GPU, else the CPU device). Throws for a value that is not a choice, naming the
    /// valid ones, and for a named kind of device that is not there.
    public static var best: Device {
        get throws(RenderError) { try bestChoice.get() }
    }

    private static let bestChoice = Result { () throws(RenderError) -> Device in
        try select(try DeviceChoice.fromEnvironment)
    }

    /// This device, except that programs of these names fail to build as if its compiler rejected them:
    /// for testing what happens then (a context falls back to the CPU device).
    public func withFailingBuilds(of programs: Set<String>) -> Device {
        Device(
            name: name, kind: kind, capabilities: capabilities,
            backend: FailingBuildsBackend(backend: backend, programs: programs))
    }

    static func log(_ message: String) {
        FileHandle.standardError.write(Data("imagekernels: \(message)\n".utf8))
    }
}

extension DeviceChoice {
    /// The choice `IMAGEKERNELS_DEVICE` names for this process; `auto` when it is unset or empty.
    public static var fromEnvironment: DeviceChoice {
        get throws(RenderError) {
            try DeviceChoice(environment: ProcessInfo.processInfo.environment[Device.environmentVariable])
        }
    }

    /// The choice an environment variable's value names; `auto` when it is unset or empty.
    public init(environment value: String?) throws(RenderError) {
        guard let value, !value.isEmpty else {
            self = .auto
            return
        }
        guard let choice = DeviceChoice(rawValue: value.lowercased()) else {
            throw .deviceUnavailable(
                """
                \(Device.environmentVariable)=\(value) is not a device choice; \
                use one of \(DeviceChoice.allCases.map(\.rawValue).joined(separator: ", "))
                """)
        }
        self = choice
    }
}

/// A backend whose named programs fail to build; everything else passes through.
private struct FailingBuildsBackend: DeviceBackend {
    let backend: any DeviceBackend
    let programs: Set<String>

    func makeBuffer(byteCount: Int) throws(RenderError) -> any DeviceBuffer {
        try backend.makeBuffer(byteCount: byteCount)
    }
    func makeBuffer(sharing memory: HostMemory) -> (any DeviceBuffer)? { backend.makeBuffer(sharing: memory) }
    func upload(_ bytes: UnsafeRawBufferPointer, to buffer: any DeviceBuffer, offset: Int) throws(RenderError) {
        try backend.upload(bytes, to: buffer, offset: offset)
    }
    func download(_ buffer: any DeviceBuffer, byteCount: Int) throws(RenderError) -> [UInt8] {
        try backend.download(buffer, byteCount: byteCount)
    }
    func launch<Arguments>(_ kernel: Kernel<Arguments>, _ arguments: Arguments, grid: KernelGrid) throws(RenderError) {
        guard !programs.contains(kernel.source.name) else {
            throw .buildFailed(
                program: kernel.source.name, log: "error: build failure injected by withFailingBuilds(of:)")
        }
        try backend.launch(kernel, arguments, grid: grid)
    }
}
