import Foundation
import ImageKernels
import TestSupport
import Testing

/// `auto` per kind of work: the device a job runs fastest on is chosen, remembered per machine in a file,
/// and timed again when the job, the file or the request says so.
@Suite struct DeviceCalibrationTests {
    /// Counts the runs of a job and makes it slow on one kind of device.
    final class Job: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        let slowOn: DeviceKind
        let failsOn: DeviceKind?

        init(slowOn: DeviceKind, failsOn: DeviceKind? = nil) {
            self.slowOn = slowOn
            self.failsOn = failsOn
        }

        var runs: Int { lock.withLock { count } }

        func workload(version: Int = 1) -> Workload {
            Workload(name: "test", version: version) { context in
                let kind = context.device.kind
                if kind == self.failsOn { throw RenderError.deviceUnavailable("no such work here") }
                return {
                    self.lock.withLock { self.count += 1 }
                    usleep(kind == self.slowOn ? 20_000 : 1_000)
                }
            }
        }
    }

    func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("calibration-\(UUID())/devices.json").path
    }

    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: one device, nothing to time"))
    func theFasterDeviceIsChosenAndRemembered() throws {
        let file = temporaryFile(), openCL = try TestDevices.openCL.get()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: file)) }
        let calibration = DeviceCalibration(file: file, devices: [.cpu, openCL])
        let slowCPU = Job(slowOn: .cpu)
        let said = try StandardError.captured { #expect(calibration.device(for: slowCPU.workload()) === openCL) }
        #expect(
            said.contains(
                "timing each kind of work on the 2 devices here to choose where it runs (once per machine; "
                    + "kept in \(file))"), "\(said)")
        #expect(slowCPU.runs == 2 * (calibration.runs + 1))
        // Another process (a new calibration on the same file) reads the choice without timing.
        #expect(DeviceCalibration(file: file, devices: [.cpu, openCL]).device(for: slowCPU.workload()) === openCL)
        #expect(slowCPU.runs == 2 * (calibration.runs + 1))
        // A new version of the job, or asking again, times it again.
        let slowOpenCL = Job(slowOn: openCL.kind)
        #expect(calibration.device(for: slowOpenCL.workload(version: 2)) === Device.cpu)
        #expect(
            calibration.calibration(of: slowOpenCL.workload(version: 2), again: true).fastest == Device.cpu.description)
        #expect(slowOpenCL.runs == 4 * (calibration.runs + 1))
        // A job that fails on a device is timed on the others; its failure is kept.
        let failing = Job(slowOn: .cpu, failsOn: openCL.kind)
        let timings = calibration.calibration(of: failing.workload(version: 3), again: true).timings
        #expect(timings.first { $0.device == openCL.description }?.failure?.contains("no such work here") == true)
        #expect(calibration.device(for: failing.workload(version: 3)) === Device.cpu)
    }

    @Test(.enabled(if: TestDevices.hasOpenCL, "no OpenCL platform here: one device, nothing to time"))
    func aDamagedFileIsTimedAgainAndRewritten() throws {
        let file = temporaryFile(), openCL = try TestDevices.openCL.get()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: file)) }
        try FileManager.default.createDirectory(
            atPath: FileSystemPath.folder(of: file), withIntermediateDirectories: true)
        try Data("{\"test\": {\"workload\": tru".utf8).write(to: URL(fileURLWithPath: file))
        let job = Job(slowOn: .cpu)
        let said = try StandardError.captured {
            #expect(DeviceCalibration(file: file, devices: [.cpu, openCL]).device(for: job.workload()) === openCL)
        }
        #expect(said.contains("timing each kind of work"), "\(said)")
        let stored = try JSONDecoder().decode(
            [String: Calibration].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(stored["test"]?.fastest == openCL.description && stored["test"]?.timings.count == 2)
    }

    /// Work given no context of its own shares one context a device (and its pool of buffers); a context
    /// given is kept.
    @Test func workWithoutAContextSharesOneContextADevice() throws {
        let shared = RenderContext.shared(on: .cpu), own = RenderContext(device: .cpu)
        #expect(RenderContext.shared(on: .cpu) === shared && shared.device === Device.cpu)
        #expect(try RenderContext.orDefault(own, for: .search) === own)
        if let openCL = try? TestDevices.openCL.get() {
            let onOpenCL = RenderContext.shared(on: openCL)
            #expect(onOpenCL !== shared && onOpenCL.device === openCL && RenderContext.shared(on: openCL) === onOpenCL)
        }
    }

    @Test func oneDeviceIsTakenWithoutTiming() {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: FileSystemPath.folder(of: file)) }
        let job = Job(slowOn: .cpu)
        #expect(DeviceCalibration(file: file, devices: [.cpu]).device(for: job.workload()) === Device.cpu)
        #expect(job.runs == 0 && !FileManager.default.fileExists(atPath: file))
    }
}
