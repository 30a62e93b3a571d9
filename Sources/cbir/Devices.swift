import ArgumentParser
import ImageKernels

/// `cbir devices`: what can render here, and which device is the default.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List OpenCL platforms and devices and the CPU device; * marks the default.")

    func run() throws {
        let best = try Device.best
        func line(_ device: Device) -> String {
            let c = device.capabilities
            var details = "\(c.computeUnits) compute units"
            if device.kind != .cpu {
                details += ", \(c.globalMemoryBytes >> 20) MiB, work-groups ≤ \(c.maxWorkGroupSize), \(c.version)"
            }
            return "  \(device === best ? "*" : " ") \(device.kind)  \(device.name)  (\(details))"
        }
        do {
            let devices = try Device.openCLDevices()
            for platform in Array(Set(devices.map(\.capabilities.platform))).sorted() {
                print("OpenCL platform: \(platform)")
                devices.filter { $0.capabilities.platform == platform }.forEach { print(line($0)) }
            }
        } catch {
            print("OpenCL: \(error)")
        }
        print("CPU device:")
        print(line(.cpu))
    }
}
