import Foundation

/// Where kernels run: an OpenCL device or the CPU device.
///
/// Get one with ``Device/best`` (honours `IMAGEKERNELS_DEVICE=cpu|opencl|gpu`), ``Device/cpu`` or
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
    /// A GPU if there is one, else any OpenCL device, else the CPU device.
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
    func upload(_ bytes: UnsafeRawBufferPointer, to buffer: any DeviceBuffer, offset: Int) throws(RenderError)
    func download(_ buffer: any DeviceBuffer, byteCount: Int) throws(RenderError) -> [UInt8]
    func prepare(_ program: KernelProgram) throws(RenderError)
    func launch(_ kernel: Kernel, arguments: [KernelArgument], globalSize: [Int], localSize: [Int]) throws(RenderError)
    func finish() throws(RenderError)
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

    /// The device for a choice; fails when that kind of device is not there.
    public static func select(_ choice: DeviceChoice) throws(RenderError) -> Device {
        switch choice {
        case .cpu:
            return .cpu
        case .auto:
            return (try? preferredOpenCLDevice()) ?? .cpu
        case .opencl:
            return try preferredOpenCLDevice()
        case .gpu:
            guard let gpu = try openCLDevices().first(where: { $0.kind == .openCL(.gpu) }) else {
                throw .deviceUnavailable("no OpenCL GPU")
            }
            return gpu
        }
    }

    private static func preferredOpenCLDevice() throws(RenderError) -> Device {
        let devices = try openCLDevices()
        guard let device = devices.first(where: { $0.kind == .openCL(.gpu) }) ?? devices.first else {
            throw .deviceUnavailable("no OpenCL device")
        }
        return device
    }

    /// The environment variable that forces a device for ``best``: `cpu`, `opencl`, `gpu` or `auto`.
    public static let environmentVariable = "IMAGEKERNELS_DEVICE"

    /// The best device here: a GPU, then any OpenCL device, then the CPU device; or the one forced
    /// by `IMAGEKERNELS_DEVICE`. When OpenCL is missing or fails, says why on stderr and uses the CPU.
    public static let best: Device = {
        let requested = ProcessInfo.processInfo.environment[environmentVariable].flatMap(DeviceChoice.init(rawValue:))
        let choice = requested ?? .auto
        do {
            if choice == .auto {
                return try preferredOpenCLDevice()
            }
            return try select(choice)
        } catch {
            log("\(error); using the CPU device")
            return .cpu
        }
    }()

    static func log(_ message: String) {
        FileHandle.standardError.write(Data("imagekernels: \(message)\n".utf8))
    }
}
