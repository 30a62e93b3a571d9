/// Why a recipe could not be planned or rendered.
public enum RenderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The OpenCL loader found no platform (no driver installed, or no ICD registered).
    case noOpenCLPlatform
    /// No device matched the requested choice.
    case deviceUnavailable(String)
    /// An OpenCL call failed with this status code.
    case openCL(call: String, code: Int32)
    /// An OpenCL program did not compile; `log` is the compiler's build log.
    case buildFailed(program: String, log: String)
    /// A filter cannot take these inputs or parameters.
    case invalidInput(filter: String, reason: String)
    /// A buffer does not match the descriptor it is said to hold.
    case sizeMismatch(expected: Int, actual: Int)
    /// A kernel's Swift arguments and its OpenCL C parameters disagree.
    case kernelSignature(kernel: String, reason: String)

    public var description: String {
        switch self {
        case .noOpenCLPlatform:
            "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)"
        case .deviceUnavailable(let what):
            "device unavailable: \(what)"
        case .openCL(let call, let code):
            "OpenCL call \(call) failed with status \(code)"
        case .buildFailed(let program, let log):
            "OpenCL program '\(program)' failed to build:\n\(log)"
        case .invalidInput(let filter, let reason):
            "\(filter): \(reason)"
        case .sizeMismatch(let expected, let actual):
            "buffer holds \(actual) bytes where \(expected) are needed"
        case .kernelSignature(let kernel, let reason):
            "kernel \(kernel): \(reason)"
        }
    }

    /// Whether a context on an OpenCL device should move to the CPU device after this error: a program
    /// that did not build, or device memory exhausted (CL_MEM_OBJECT_ALLOCATION_FAILURE,
    /// CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY).
    var warrantsFallback: Bool {
        switch self {
        case .buildFailed: true
        case .openCL(_, let code): [-4, -5, -6].contains(code)
        default: false
        }
    }
}
