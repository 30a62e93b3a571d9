import BenchmarkSupport
import Foundation

/// photo-bench's figures. Field names are the JSON format other tools read: keep them.
struct PhotoBenchReport: Encodable {
    /// How one method ranks the UKBench-style set.
    struct Retrieval: Encodable {
        let method: String
        let photos: Int
        let nsScore: Double
        let meanAveragePrecision: Double
    }

    /// How fast photos are printed, decoding included.
    struct Speed: Encodable {
        let device: String
        let batch: Int
        let photos: Int
        let seconds: Double
        let photosPerSecond: Double
    }

    let machine: String
    let runs: Int
    let retrieval: [Retrieval]
    let speed: [Speed]

    var markdown: String {
        var lines = [
            """
            Machine: \(machine). Seconds: median of \(runs) runs after a warm-up.
            """,
            "",
            "| method | photos | N-S score | mAP |",
            "|---|---:|---:|---:|",
        ]
        for row in retrieval {
            lines.append(
                "| \(row.method) | \(row.photos) | \(String(format: "%.3f", row.nsScore)) | "
                    + "\(String(format: "%.3f", row.meanAveragePrecision)) |")
        }
        lines += ["", "| device | batch | photos | seconds | photos/s |", "|---|---:|---:|---:|---:|"]
        for row in speed {
            lines.append(
                "| \(row.device) | \(row.batch) | \(row.photos) | \(String(format: "%.3f", row.seconds)) | "
                    + "\(String(format: "%.1f", row.photosPerSecond)) |")
        }
        return lines.joined(separator: "\n")
    }
}
