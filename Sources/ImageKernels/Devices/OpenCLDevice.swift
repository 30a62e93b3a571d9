import COpenCL
import Foundation

/// An OpenCL device's memory object.
final class OpenCLBuffer: DeviceBuffer, @unchecked Sendable {
    let byteCount: Int
    let memory: cl_mem

    init(byteCount: Int, memory: cl_mem) {
        self.byteCount = byteCount
        self.memory = memory
    }

    deinit { clReleaseMemObject(memory) }
}

/// One OpenCL device with its context, in-order queue and program cache.
final class OpenCLBackend: DeviceBackend, @unchecked Sendable {
    private let device: cl_device_id
    private let context: cl_context
    private let queue: cl_command_queue
    private let programs: OpenCLProgramCache
    /// Serialises argument setting and enqueueing: a `cl_kernel` holds its arguments.
    private let launchLock = NSLock()

    private init(device: cl_device_id) throws(RenderError) {
        self.device = device
        var status: cl_int = 0
        var deviceList: cl_device_id? = device
        guard let context = clCreateContext(nil, 1, &deviceList, nil, nil, &status), status == CL_SUCCESS else {
            throw .openCL(call: "clCreateContext", code: status)
        }
        guard let queue = clCreateCommandQueueWithProperties(context, device, nil, &status), status == CL_SUCCESS else {
            clReleaseContext(context)
            throw .openCL(call: "clCreateCommandQueueWithProperties", code: status)
        }
        self.context = context
        self.queue = queue
        let singleFloat = Self.deviceValue(
            device, cl_device_info(CL_DEVICE_SINGLE_FP_CONFIG), as: cl_device_fp_config.self)
        let correctlyRounded = singleFloat & cl_device_fp_config(CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0
        self.programs = OpenCLProgramCache(
            context: context, device: device,
            buildOptions: correctlyRounded ? " -cl-fp32-correctly-rounded-divide-sqrt" : "")
    }

    deinit {
        programs.releaseAll()
        clReleaseCommandQueue(queue)
        clReleaseContext(context)
    }

    // MARK: Discovery

    /// Every device of every platform, each with its own context.
    static func discoverDevices() throws(RenderError) -> [Device] {
        var platformCount: cl_uint = 0
        let status = clGetPlatformIDs(0, nil, &platformCount)
        guard status == CL_SUCCESS, platformCount > 0 else {
            // -1001 is CL_PLATFORM_NOT_FOUND_KHR, the ICD loader's "no platform".
            if status == -1001 || platformCount == 0 { throw .noOpenCLPlatform }
            throw .openCL(call: "clGetPlatformIDs", code: status)
        }
        var platforms = [cl_platform_id?](repeating: nil, count: Int(platformCount))
        try check(clGetPlatformIDs(platformCount, &platforms, nil), "clGetPlatformIDs")
        var devices: [Device] = []
        for case let platform? in platforms {
            let platformName = platformInfo(platform, cl_platform_info(CL_PLATFORM_NAME))
            var deviceCount: cl_uint = 0
            guard clGetDeviceIDs(platform, cl_device_type(CL_DEVICE_TYPE_ALL), 0, nil, &deviceCount) == CL_SUCCESS,
                deviceCount > 0
            else { continue }
            var ids = [cl_device_id?](repeating: nil, count: Int(deviceCount))
            try check(
                clGetDeviceIDs(platform, cl_device_type(CL_DEVICE_TYPE_ALL), deviceCount, &ids, nil),
                "clGetDeviceIDs")
            for case let id? in ids {
                let backend = try OpenCLBackend(device: id)
                devices.append(
                    Device(
                        name: deviceString(id, cl_device_info(CL_DEVICE_NAME)),
                        kind: .openCL(deviceType(id)),
                        capabilities: DeviceCapabilities(
                            platform: platformName,
                            vendor: deviceString(id, cl_device_info(CL_DEVICE_VENDOR)),
                            version: deviceString(id, cl_device_info(CL_DEVICE_VERSION)),
                            computeUnits: Int(
                                deviceValue(id, cl_device_info(CL_DEVICE_MAX_COMPUTE_UNITS), as: cl_uint.self)),
                            globalMemoryBytes: Int(
                                deviceValue(id, cl_device_info(CL_DEVICE_GLOBAL_MEM_SIZE), as: cl_ulong.self)),
                            localMemoryBytes: Int(
                                deviceValue(id, cl_device_info(CL_DEVICE_LOCAL_MEM_SIZE), as: cl_ulong.self)),
                            maxWorkGroupSize: deviceValue(
                                id, cl_device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE), as: Int.self)),
                        backend: backend))
            }
        }
        guard !devices.isEmpty else {
            throw .deviceUnavailable("OpenCL platforms have no devices" + (poclCacheProblem().map { " (\($0))" } ?? ""))
        }
        return devices
    }

    /// Why pocl would offer no device, if that is the reason: it gives its devices up when it cannot write
    /// its kernel cache (`POCL_CACHE_DIR`, else `$XDG_CACHE_HOME/pocl` or `~/.cache/pocl`).
    private static func poclCacheProblem() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment["POCL_CACHE_DIR"]
            ?? (environment["XDG_CACHE_HOME"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache") + "/pocl"
        let made = (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
        guard !made || access(folder, W_OK) != 0 else { return nil }
        return "pocl's kernel cache \(folder) cannot be written; set POCL_CACHE_DIR to a writable folder"
    }

    private static func deviceType(_ id: cl_device_id) -> OpenCLDeviceType {
        let type = deviceValue(id, cl_device_info(CL_DEVICE_TYPE), as: cl_device_type.self)
        if type & cl_device_type(CL_DEVICE_TYPE_GPU) != 0 { return .gpu }
        if type & cl_device_type(CL_DEVICE_TYPE_CPU) != 0 { return .cpu }
        if type & cl_device_type(CL_DEVICE_TYPE_ACCELERATOR) != 0 { return .accelerator }
        return .other
    }

    private static func platformInfo(_ platform: cl_platform_id, _ info: cl_platform_info) -> String {
        openCLString { clGetPlatformInfo(platform, info, $0, $1, $2) }
    }

    private static func deviceString(_ id: cl_device_id, _ info: cl_device_info) -> String {
        openCLString { clGetDeviceInfo(id, info, $0, $1, $2) }
    }

    private static func deviceValue<T: FixedWidthInteger>(_ id: cl_device_id, _ info: cl_device_info, as type: T.Type)
        -> T
    {
        var value: T = 0
        clGetDeviceInfo(id, info, MemoryLayout<T>.size, &value, nil)
        return value
    }

    // MARK: DeviceBackend

    func makeBuffer(byteCount: Int) throws(RenderError) -> any DeviceBuffer {
        var status: cl_int = 0
        guard let memory = clCreateBuffer(context, cl_mem_flags(CL_MEM_READ_WRITE), max(byteCount, 1), nil, &status),
            status == CL_SUCCESS
        else {
            throw .openCL(call: "clCreateBuffer(\(byteCount) bytes)", code: status)
        }
        return OpenCLBuffer(byteCount: byteCount, memory: memory)
    }

    /// Never: OpenCL shares host memory only through CL_MEM_USE_HOST_PTR with a map and unmap around
    /// every host write, so shared residents are copied to OpenCL devices like any other.
    func makeBuffer(sharing memory: HostMemory) -> (any DeviceBuffer)? { nil }

    func upload(_ bytes: UnsafeRawBufferPointer, to buffer: any DeviceBuffer, offset: Int) throws(RenderError) {
        let target = try openCLBuffer(buffer)
        guard offset >= 0, target.byteCount >= offset + bytes.count else {
            throw .sizeMismatch(expected: offset + bytes.count, actual: target.byteCount)
        }
        guard !bytes.isEmpty else { return }
        try Self.check(
            clEnqueueWriteBuffer(
                queue, target.memory, cl_bool(CL_TRUE), offset, bytes.count, bytes.baseAddress, 0, nil, nil),
            "clEnqueueWriteBuffer")
    }

    func download(_ buffer: any DeviceBuffer, byteCount: Int) throws(RenderError) -> [UInt8] {
        let source = try openCLBuffer(buffer)
        guard source.byteCount >= byteCount else { throw .sizeMismatch(expected: byteCount, actual: source.byteCount) }
        var bytes = [UInt8](repeating: 0, count: byteCount)
        guard byteCount > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBytes {
            clEnqueueReadBuffer(queue, source.memory, cl_bool(CL_TRUE), 0, byteCount, $0.baseAddress, 0, nil, nil)
        }
        try Self.check(status, "clEnqueueReadBuffer")
        return bytes
    }

    func launch<Arguments>(_ kernel: Kernel<Arguments>, _ arguments: Arguments, grid: KernelGrid) throws(RenderError) {
        let bindings = try arguments.bindings(for: kernel.entryPoint)
        let clKernel = try programs.kernel(kernel.entryPoint, in: kernel.program(grid.schedule))
        launchLock.lock()
        defer { launchLock.unlock() }
        var constants: [OpenCLBuffer] = []  // kept alive until the kernel is enqueued
        for (index, binding) in bindings.enumerated() {
            let position = cl_uint(index)
            let status: cl_int
            switch binding {
            case .buffer(let buffer):
                var memory: cl_mem? = try openCLBuffer(buffer).memory
                status = clSetKernelArg(clKernel, position, MemoryLayout<cl_mem>.size, &memory)
            case .int32(var value):
                status = clSetKernelArg(clKernel, position, MemoryLayout<cl_int>.size, &value)
            case .uint32(var value):
                status = clSetKernelArg(clKernel, position, MemoryLayout<cl_uint>.size, &value)
            case .float32(var value):
                status = clSetKernelArg(clKernel, position, MemoryLayout<cl_float>.size, &value)
            case .constant(let values):
                status = try setConstant(values, clKernel, position, &constants)
            case .local(let byteCount):
                status = clSetKernelArg(clKernel, position, max(byteCount, 1), nil)
            }
            try Self.check(status, "clSetKernelArg(\(kernel.entryPoint), \(index))")
        }
        var global = grid.schedule.globalSize(for: grid.size)
        var local = grid.schedule.localSize(dimensions: global.count)
        let status = clEnqueueNDRangeKernel(queue, clKernel, cl_uint(global.count), nil, &global, &local, 0, nil, nil)
        try Self.check(status, "clEnqueueNDRangeKernel(\(kernel.entryPoint))")
    }

    /// Binds a copy of `values` in a read-only buffer, kept alive in `keep` until the kernel is enqueued.
    private func setConstant(
        _ values: any KernelConstantArray, _ kernel: cl_kernel, _ position: cl_uint,
        _ keep: inout [OpenCLBuffer]
    ) throws(RenderError) -> cl_int {
        var status: cl_int = 0
        let flags = cl_mem_flags(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR)
        let (memory, byteCount) = values.withUnsafeBytes { bytes -> (cl_mem?, Int) in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                var placeholder: UInt8 = 0  // OpenCL has no empty buffers
                return (clCreateBuffer(context, flags, 1, &placeholder, &status), 1)
            }
            return (
                clCreateBuffer(context, flags, bytes.count, UnsafeMutableRawPointer(mutating: base), &status),
                bytes.count
            )
        }
        guard let memory, status == CL_SUCCESS else { throw .openCL(call: "clCreateBuffer(constant)", code: status) }
        keep.append(OpenCLBuffer(byteCount: byteCount, memory: memory))
        var handle: cl_mem? = memory
        return clSetKernelArg(kernel, position, MemoryLayout<cl_mem>.size, &handle)
    }

    private func openCLBuffer(_ buffer: any DeviceBuffer) throws(RenderError) -> OpenCLBuffer {
        guard let cl = buffer as? OpenCLBuffer else {
            throw .deviceUnavailable("a buffer of another device was passed to an OpenCL device")
        }
        return cl
    }

    /// A string from an OpenCL info query `(size, value, sizeReturned) -> status`: asked once for its
    /// size, then read; empty when the query fails.
    static func openCLString(_ query: (Int, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?) -> cl_int) -> String {
        var size = 0
        guard query(0, nil, &size) == CL_SUCCESS, size > 0 else { return "" }
        var chars = [UInt8](repeating: 0, count: size)
        guard chars.withUnsafeMutableBytes({ query(size, $0.baseAddress, nil) }) == CL_SUCCESS else { return "" }
        return String(decoding: chars.prefix { $0 != 0 }, as: UTF8.self)
    }

    static func check(_ status: cl_int, _ call: String) throws(RenderError) {
        guard status == CL_SUCCESS else { throw .openCL(call: call, code: status) }
    }
}
