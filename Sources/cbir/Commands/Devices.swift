import ArgumentParser
import FaceDetection
import FaceRecognition
import Foundation
import ImageKernels

/// `cbir devices`: what can render here, which device is the default, and which device each kind of work
/// takes with `auto`, with the timings that chose it.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List OpenCL platforms and devices and the CPU device; * marks the default.",
        discussion: """
            With auto (the default), detection (cascades; BlazeFace), describing, embedding and search each run on \
            the device that ran \
            a short job of that kind fastest here: timed once per machine and kept in \(DeviceCalibration.defaultFile).
            """)

    @Flag(help: "Time every kind of work again.")
    var calibrate = false

    @OptionGroup var verbosity: Verbosity

    static let workloads: [Workload] = [.detection, .blazeFace, .describing, .embedding, .search]

    func run() throws {
        verbosity.apply()
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
                for device in devices where device.capabilities.platform == platform { print(line(device)) }
            }
        } catch {
            print("OpenCL: \(error)")
        }
        print("CPU device:")
        print(line(.cpu))
        let choice = try DeviceChoice.fromEnvironment
        guard choice == .auto else {
            print("Work: all on \(best) (\(Device.environmentVariable)=\(choice.rawValue))")
            return
        }
        print("Work (auto: the device each kind ran fastest on here):")
        let width = Self.workloads.map(\.name.count).max() ?? 0
        for workload in Self.workloads {
            let calibration = DeviceCalibration.shared.calibration(of: workload, again: calibrate)
            let timings = calibration.timings.map { timing in
                timing.seconds.map { String(format: "%@ %.4f s", timing.device, $0) }
                    ?? "\(timing.device): \(timing.failure ?? "failed")"
            }
            print(
                """
                  \(workload.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(calibration.fastest)  \
                [\(timings.joined(separator: "; "))]
                """
            )
        }
    }
}
