import BenchmarkSupport
import Foundation
import PhotoSimilarity

/// photo-bench's figures. Field names are the JSON format other tools read: keep them.
struct PhotoBenchReport: Encodable {
    /// How one method ranks the UKBench-style set.
    struct Retrieval: Encodable {
        let method: String
        let photos: Int
        let nsScore: Double
        let meanAveragePrecision: Double
    }

    /// How one method at one threshold groups transformed copies (``NearDuplicateScore``) in one set of photos,
    /// with the groups it makes of different objects, and how often it links each kind of copy to its original.
    struct NearDuplicates: Encodable {
        let method: String
        let threshold: Float
        let photos: Int
        let score: NearDuplicateScore
        let set: String
        let largestGroup: Int
        let groupsOfDifferentObjects: Int
        /// The first few of those, by the names of their photos.
        let namedGroupsOfDifferentObjects: [[String]]
        /// Of each kind of copy, the share linked to its original as a pair (before grouping).
        let pairRecallByCopy: [String: Double]
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

    /// How one step of the sharper ranking (`PrintExpansion`) ranks a UKBench-style set.
    struct Expansion: Encodable {
        let set: String
        let photos: Int
        let step: String
        let neighbours: Int
        let weightPower: Float
        let nsScore: Double
        let meanAveragePrecision: Double

        init(set: String, photos: Int, step: String, expansion: PrintExpansion, _ score: RetrievalScore) {
            (self.set, self.photos, self.step) = (set, photos, step)
            (neighbours, weightPower) = (expansion.neighbourCount, expansion.weightPower)
            (nsScore, meanAveragePrecision) = (score.nsScore, score.meanAveragePrecision)
        }
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
    let expansion: [Expansion]
    /// Augmentation and query expansion on the first expansion set at each neighbour count and weight power.
    let expansionGrid: [Expansion]

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
            "| set | method | threshold | photos | precision | recall | " + copies.joined(separator: " | ")
                + " | views joined | largest | groups of different objects | half frame, pairs | half side, pairs |",
            "|---|---|---:|---:|---:|---:|" + String(repeating: "---:|", count: copies.count + 5),
        ]
        for row in nearDuplicates {
            let score = row.score
            lines.append(
                "| \(row.set) | \(row.method) | \(String(format: "%g", row.threshold)) | \(row.photos) | "
                    + ([score.precision, score.recall] + copies.map { score.recallByCopy[$0] ?? 0 } + [
                        score.viewsJoined
                    ])
                    .map { String(format: "%.3f", $0) }.joined(separator: " | ")
                    + " | \(row.largestGroup) | \(row.groupsOfDifferentObjects) | "
                    + [PhotoCopy.halfFrame, .halfSide].map {
                        String(format: "%.3f", row.pairRecallByCopy[$0.rawValue] ?? 0)
                    }
                    .joined(separator: " | ") + " |")
        }
        for row in nearDuplicates where !row.namedGroupsOfDifferentObjects.isEmpty {
            lines.append("")
            let named = row.namedGroupsOfDifferentObjects.count
            lines.append("\(row.set), \(row.method): groups of different objects (the first \(named)):")
            for group in row.namedGroupsOfDifferentObjects { lines.append("- " + group.joined(separator: ", ")) }
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
        lines += expansionMarkdown
        return lines.joined(separator: "\n")
    }

    /// The expansion's tables: each step on each set, then the tuning grid's N-S scores (mAP in brackets).
    private var expansionMarkdown: [String] {
        guard !expansion.isEmpty else { return [] }
        var lines = ["", "| set | photos | ranking | k | α | N-S score | mAP |", "|---|---:|---|---:|---:|---:|---:|"]
        for row in expansion {
            let parameters = row.step.contains("expansion") || row.step.contains("augmentation")
            lines.append(
                "| \(row.set) | \(row.photos) | \(row.step) | \(parameters ? "\(row.neighbours)" : "") | "
                    + "\(parameters ? String(format: "%g", row.weightPower) : "") | "
                    + "\(String(format: "%.3f", row.nsScore)) | \(String(format: "%.3f", row.meanAveragePrecision)) |")
        }
        let powers = Array(Set(expansionGrid.map(\.weightPower))).sorted()
        guard let set = expansionGrid.first?.set else { return lines }
        lines += [
            "", "\(set), augmentation and α query expansion at each k (rows) and α (columns): N-S score (mAP)", "",
            "| k | " + powers.map { "α \(String(format: "%g", $0))" }.joined(separator: " | ") + " |",
            "|---:|" + String(repeating: "---:|", count: powers.count),
        ]
        for count in Array(Set(expansionGrid.map(\.neighbours))).sorted() {
            let cells = powers.map { power in
                expansionGrid.first { $0.neighbours == count && $0.weightPower == power }.map {
                    String(format: "%.3f (%.3f)", $0.nsScore, $0.meanAveragePrecision)
                } ?? ""
            }
            lines.append("| \(count) | " + cells.joined(separator: " | ") + " |")
        }
        return lines
    }
}
