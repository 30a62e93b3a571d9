import Foundation

/// The process's peak resident memory (Linux: VmHWM), which `reset` brings down to the present size, so
/// that a figure covers only the work measured after it.
public enum PeakMemory {
    public static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The peak since the last reset, in megabytes (0 where /proc does not say).
    public static func megabytes() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }
}
