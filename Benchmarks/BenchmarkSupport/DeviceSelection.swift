import ArgumentParser
import ImageKernels

/// Which devices a benchmark times: the CPU device, the OpenCL one, or both (`--device`).
public enum DeviceSelection: String, CaseIterable, Sendable, ExpressibleByArgument {
    case cpu, opencl, all

    /// The selected devices that are there; a missing OpenCL device is said on stderr through `progress`.
    public func devices(progress: (String) -> Void) -> [Device] {
        var devices: [Device] = []
        if self != .opencl { devices.append(.cpu) }
        if self != .cpu {
            do { devices.append(try Device.select(.opencl)) } catch { progress("\(error); timing the CPU device only") }
        }
        return devices
    }
}

extension Device {
    /// The kind of OpenCL device whose kernel shapes this OpenCL device is also timed with: a GPU's on an
    /// OpenCL CPU, a CPU's on a GPU (nil for the CPU device). `name` labels the column ("GPU"-shaped).
    public var otherShapes: (kind: DeviceKind, name: String)? {
        switch kind {
        case .cpu: nil
        case .openCL(.cpu): (.openCL(.gpu), "GPU")
        case .openCL: (.openCL(.cpu), "CPU")
        }
    }
}
