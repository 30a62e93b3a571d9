import Foundation
import ImageKernels

/// Median wall time in seconds of `runs` calls after one warm-up call.
public func medianSeconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var times: [Double] = []
    for _ in 0..<max(1, runs) {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times.sorted()[times.count / 2]
}

/// One line about the machine: CPU model, cores, the widest vectors it has (two hosts of this project's machine
/// kind share one model name, one with AVX-512 and one without) and what this code was built for.
public func machineDescription() -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = { (key: String) in
        cpuinfo.split(separator: "\n").first { $0.hasPrefix(key) }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
    }
    let flags = Set((line("flags") ?? "").split(separator: " "))
    let vectors = flags.contains("avx512f") ? "AVX-512" : flags.contains("avx2") ? "AVX2" : "no AVX2"
    return """
        \(line("model name") ?? "unknown CPU"), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(vectors) \
        host, \(DeviceCalibration.build) build
        """
}
