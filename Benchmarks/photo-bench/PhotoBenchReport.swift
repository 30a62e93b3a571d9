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

    /// How one method at one threshold groups transformed copies (``NearDuplicateScore``).
    struct NearDuplicates: Encodable {
        let method: String
        let threshold: Float
        let photos: Int
        let score: NearDuplicateScore
    }

    /// How long exact grouping and the linear pass take on the same prints.
    struct Grouping: Encodable {
        let prints: Int
        /// What the prints are (random, or prints of photos).
        let source: String
        let threshold: Float
        let exactSeconds: Double
        let exactGroups: Int
        let linearSeconds: Double
        let linearGroups: Int
        /// Peak resident memory of the exact grouping, the prints included.
        let peakMemoryMB: Double
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
    let nearDuplicates: [NearDuplicates]
    let grouping: [Grouping]
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
        let copies = PhotoCopy.allCases.map(\.rawValue)
        lines += [
            "",
            "| method | threshold | photos | precision | recall | " + copies.joined(separator: " | ")
                + " | views joined |",
            "|---|---:|---:|---:|---:|" + String(repeating: "---:|", count: copies.count + 1),
        ]
        for row in nearDuplicates {
            let score = row.score
            lines.append(
                "| \(row.method) | \(String(format: "%g", row.threshold)) | \(row.photos) | "
                    + ([score.precision, score.recall] + copies.map { score.recallByCopy[$0] ?? 0 } + [
                        score.viewsJoined
                    ])
                    .map { String(format: "%.3f", $0) }.joined(separator: " | ") + " |")
        }
        lines += [
            "", "| prints | source | threshold | exact s | groups | linear pass s | groups | peak MB |",
            "|---:|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row in grouping {
            lines.append(
                "| \(row.prints) | \(row.source) | \(row.threshold) | \(String(format: "%.3f", row.exactSeconds)) | "
                    + "\(row.exactGroups) | \(String(format: "%.4f", row.linearSeconds)) | \(row.linearGroups) | "
                    + "\(String(format: "%.0f", row.peakMemoryMB)) |")
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
