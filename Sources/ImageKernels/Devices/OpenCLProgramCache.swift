import COpenCL
import Foundation

/// Built programs and their kernels for one OpenCL context, each built once per (source, options). The
/// compiler's warnings are inhibited (`-w`), since some OpenCL compilers print their count on standard
/// error, unless ``Device/isVerbose``: then each program's build log is reported. A failed build's log
/// is in its error either way.
final class OpenCLProgramCache: @unchecked Sendable {
    private let context: cl_context
    private let device: cl_device_id
    /// Options every program of this device is built with, after its own: correctly rounded division and
    /// square root where the device offers them, so that a kernel divides as its CPU twin does (OpenCL lets
    /// a GPU's division be 2.5 ulp off, and NVIDIA's is: block histograms then stopped being exact counts).
    private let buildOptions: String
    private let lock = NSLock()
    private var programs: [KernelProgram: cl_program] = [:]
    private var kernels: [KernelKey: cl_kernel] = [:]

    private struct KernelKey: Hashable {
        let program: KernelProgram
        let entryPoint: String
    }

    init(context: cl_context, device: cl_device_id, buildOptions: String) {
        self.context = context
        self.device = device
        self.buildOptions = buildOptions
    }

    /// The kernel object for an entry point, building its program first when needed.
    func kernel(_ entryPoint: String, in program: KernelProgram) throws(RenderError) -> cl_kernel {
        lock.lock()
        defer { lock.unlock() }
        let key = KernelKey(program: program, entryPoint: entryPoint)
        if let kernel = kernels[key] { return kernel }
        let built = try buildLocked(program)
        var status: cl_int = 0
        guard let kernel = clCreateKernel(built, entryPoint, &status), status == CL_SUCCESS else {
            throw .openCL(call: "clCreateKernel(\(entryPoint))", code: status)
        }
        kernels[key] = kernel
        return kernel
    }

    func releaseAll() {
        lock.lock()
        defer { lock.unlock() }
        for kernel in kernels.values { clReleaseKernel(kernel) }
        for program in programs.values { clReleaseProgram(program) }
        kernels = [:]
        programs = [:]
    }

    private func buildLocked(_ program: KernelProgram) throws(RenderError) -> cl_program {
        if let built = programs[program] { return built }
        var status: cl_int = 0
        let created: cl_program? = program.source.text.withCString { text in
            var pointer: UnsafePointer<CChar>? = text
            return clCreateProgramWithSource(context, 1, &pointer, nil, &status)
        }
        guard let created, status == CL_SUCCESS else {
            throw .openCL(call: "clCreateProgramWithSource(\(program.name))", code: status)
        }
        var device: cl_device_id? = self.device
        let verbose = Device.isVerbose
        let buildStatus = clBuildProgram(
            created, 1, &device, program.options + buildOptions + (verbose ? "" : " -w"), nil, nil)
        guard buildStatus == CL_SUCCESS else {
            let log = buildLog(created)
            clReleaseProgram(created)
            throw .buildFailed(program: program.name, log: log.isEmpty ? "status \(buildStatus)" : log)
        }
        if verbose {
            let log = buildLog(created)
            Device.log(
                "built \(program.name) (\(program.options.trimmingCharacters(in: .whitespaces)))"
                    + (log.isEmpty ? "" : ":\n" + log))
        }
        programs[program] = created
        return created
    }

    private func buildLog(_ program: cl_program) -> String {
        OpenCLBackend.openCLString {
            clGetProgramBuildInfo(program, device, cl_program_build_info(CL_PROGRAM_BUILD_LOG), $0, $1, $2)
        }
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
