import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's peak resident memory (Linux: VmHWM), which `reset` brings down to the present size, so
/// that a figure covers only the work measured after it.
public enum PeakMemory {
    /// Hands the memory already freed back to the system first (glibc keeps it otherwise, and the present size
    /// would count what earlier work freed), then starts the peak again from the present size.
    public static func reset() {
        #if canImport(Glibc)
            // glibc's malloc_trim, which Swift's Glibc module leaves out.
            if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
                _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
            }
        #endif
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
