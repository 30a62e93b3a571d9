import Foundation
import Synchronization

/// A kind of work (detection, search, …) whose device `auto` picks by measurement: a short job typical of
/// the work, timed on every device here. Which device is faster differs by work and machine (here pocl
/// detects faces faster than the CPU twins, which search faster than pocl), so no single rule serves.
public struct Workload: Sendable {
    /// Names the workload in the calibration file and in `cbir devices`.
    public let name: String
    /// Changes when the job does, or a device's kernels for it change enough to move the choice, so that
    /// old timings are not trusted.
    public let version: Int
    /// Sets the job up on a context (models read, inputs made: not timed) and returns the timed part.
    public let prepare: @Sendable (RenderContext) throws -> @Sendable () throws -> Void

    public init(
        name: String, version: Int, prepare: @escaping @Sendable (RenderContext) throws -> @Sendable () throws -> Void
    ) {
        self.name = name
        self.version = version
        self.prepare = prepare
    }
}

extension Workload {
    /// Made-up inputs for workloads' jobs: a fixed sequence, so that every device gets the same work.
    public struct Noise: Sendable {
        private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

        public init() {}

        private mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }

        public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 20) }

        /// In [0, 1).
        public mutating func unit() -> Float { Float(next() >> 29) / Float(1 << 24) }
    }
}

/// What timing a workload on this machine's devices found.
public struct Calibration: Sendable, Codable, Equatable {
    /// One device's time.
    public struct Timing: Sendable, Codable, Equatable {
        /// The device, as its `description` reads.
        public let device: String
        /// Median seconds of the timed runs, or nil where the job failed.
        public let seconds: Double?
        /// Why the job failed there.
        public let failure: String?
    }

    public let workload: String
    public let version: Int
    /// The processor and the devices timed: a change of either calls for timing again.
    public let machine: String
    public let timings: [Timing]

    /// The device the job ran fastest on (its `description`); the CPU device when it ran nowhere.
    public var fastest: String {
        timings.compactMap { timing in timing.seconds.map { (timing.device, $0) } }.min { $0.1 < $1.1 }?.0
            ?? Device.cpu.description
    }
}

/// Times each workload on every device here, once per machine, and remembers the fastest in a JSON file:
/// `$FACESEARCH_CACHE/devices.json`, else `$XDG_CACHE_HOME/facesearch/devices.json`, else
/// `~/.cache/facesearch/devices.json`. A file that cannot be read or written costs a timing, never a
/// failure.
public final class DeviceCalibration: @unchecked Sendable {
    /// The calibration ``Device/best(for:)`` uses: the CPU device and every OpenCL device, the default file.
    public static let shared = DeviceCalibration(
        file: defaultFile, devices: [.cpu] + ((try? Device.openCLDevices()) ?? []))

    /// Where the timings are kept.
    public let file: String
    /// The devices timed, the CPU device first.
    public let devices: [Device]
    /// Timed runs per device, after one untimed run that builds the programs.
    public let runs: Int
    /// The processor, its threads, the build's instruction set and the devices timed.
    let machine: String
    private let lock = NSLock()
    /// Whether this process has said that it times workloads (once, unless verbose).
    private var reported = false

    public init(file: String, devices: [Device], runs: Int = 3) {
        self.file = file
        self.devices = devices
        self.runs = max(runs, 1)
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown processor"
        machine =
            "\(model), \(ProcessInfo.processInfo.activeProcessorCount) threads, \(Self.build) build; "
            + devices.map(\.description).joined(separator: "; ")
    }

    /// The instruction set this code was built for (Package.swift): the CPU device's speed depends on it.
    #if FACESEARCH_AVX512
        public static let build = "AVX-512"
    #elseif FACESEARCH_AVX2
        public static let build = "AVX2"
    #else
        public static let build = "portable"
    #endif

    /// The file the shared calibration keeps its timings in (see the type's description).
    public static var defaultFile: String {
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment["FACESEARCH_CACHE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache")
            + "/facesearch"
        return folder + "/devices.json"
    }

    /// The fastest device here for the workload.
    public func device(for workload: Workload) -> Device {
        let fastest = calibration(of: workload).fastest
        return devices.first { $0.description == fastest } ?? .cpu
    }

    /// The workload's timings: from the file when they were taken on this machine with these devices for
    /// this version of the job, else taken now (one device needs no timing) and written to the file.
    /// `again` times anew whatever the file holds.
    public func calibration(of workload: Workload, again: Bool = false) -> Calibration {
        lock.withLock {
            var stored = read()
            if !again, let known = stored[workload.name], known.version == workload.version, known.machine == machine {
                return known
            }
            guard devices.count > 1 else {
                return Calibration(
                    workload: workload.name, version: workload.version, machine: machine,
                    timings: devices.map {
                        .init(device: $0.description, seconds: nil, failure: "the only device: not timed")
                    })
            }
            if Device.isVerbose {
                Device.log(
                    """
                    timing \(workload.name) on \(devices.count) devices to choose one (once per machine; kept in \
                    \(file))
                    """
                )
            } else if !reported {
                Device.log(
                    """
                    timing each kind of work on the \(devices.count) devices here to choose where it runs (once \
                    per machine; kept in \(file))
                    """
                )
            }
            reported = true
            let calibration = Calibration(
                workload: workload.name, version: workload.version, machine: machine,
                timings: devices.map { time(workload, on: $0) })
            stored[workload.name] = calibration
            write(stored)
            return calibration
        }
    }

    /// The median of `runs` timed runs after an untimed one, on a context that throws rather than falls
    /// back (a device that cannot run the job is not the fastest at it).
    private func time(_ workload: Workload, on device: Device) -> Calibration.Timing {
        do {
            let job = try workload.prepare(RenderContext(device: device, fallsBack: false))
            try job()
            var seconds: [Double] = []
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                try job()
                seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            return .init(device: device.description, seconds: seconds.sorted()[seconds.count / 2], failure: nil)
        } catch {
            return .init(device: device.description, seconds: nil, failure: "\(error)")
        }
    }

    private func read() -> [String: Calibration] {
        guard let data = FileManager.default.contents(atPath: file) else { return [:] }
        return (try? JSONDecoder().decode([String: Calibration].self, from: data)) ?? [:]
    }

    private func write(_ calibrations: [String: Calibration]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try FileManager.default.createDirectory(
                atPath: FileSystemPath.folder(of: file), withIntermediateDirectories: true)
            try encoder.encode(calibrations).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            Device.log("cannot keep device timings in \(file): \(error.localizedDescription)")
        }
    }
}

extension Device {
    /// The device for a kind of work: the one `IMAGEKERNELS_DEVICE` names, else (`auto`) the one the work
    /// ran fastest on here (``DeviceCalibration/shared``).
    public static func best(for workload: Workload) throws(RenderError) -> Device {
        guard try DeviceChoice.fromEnvironment == .auto else { return try best }
        return DeviceCalibration.shared.device(for: workload)
    }
}

extension RenderContext {
    /// `context`, or when it is nil the shared context (``shared(on:)``) of the device the workload runs
    /// fastest on.
    public static func orDefault(_ context: RenderContext?, for workload: Workload) throws(RenderError) -> RenderContext
    {
        if let context { return context }
        return shared(on: try Device.best(for: workload))
    }

    /// The one context of this process on `device`, for work given no context of its own: the detector,
    /// embedder and describer of an indexing run that land on one device share its pool of buffers (a
    /// context each took twice the memory and page faults of one context for them all).
    public static func shared(on device: Device) -> RenderContext {
        sharedContexts.withLock { contexts in
            if let shared = contexts.first(where: { $0.madeFor === device }) { return shared.context }
            let context = RenderContext(device: device)
            contexts.append((device, context))
            return context
        }
    }

    /// Each with the device it was made for (it moves to the CPU device where that one cannot go on).
    private static let sharedContexts = Mutex<[(madeFor: Device, context: RenderContext)]>([])
}
