import Foundation

/// cleanup-bench's figures. Field names are the JSON format other tools read: keep them.
struct CleanupBenchReport: Encodable {
    /// One look, apply and undo.
    struct Measurement: Encodable {
        let groups, moved, leftAlone: Int
        /// Moves of a copy made for its original or of the original for its copy, and the others.
        let copiesMoved, othersMoved: Int
        let lookSeconds, lookPeakMB, applySeconds, applyPeakMB, undoSeconds: Double
    }

    /// The medians of one destination's runs; the counts are the first run's (every run plans the same).
    struct Row: Encodable {
        let destination: String
        let groups, moved, leftAlone, copiesMoved, othersMoved: Int
        let lookSeconds, lookPeakMB, applySeconds, applyPeakMB, undoSeconds: Double

        init(destination: String, _ runs: [Measurement]) {
            func median(_ value: (Measurement) -> Double) -> Double { runs.map(value).sorted()[runs.count / 2] }
            self.destination = destination
            (groups, moved, leftAlone) = (runs[0].groups, runs[0].moved, runs[0].leftAlone)
            (copiesMoved, othersMoved) = (runs[0].copiesMoved, runs[0].othersMoved)
            (lookSeconds, lookPeakMB) = (median(\.lookSeconds), median(\.lookPeakMB))
            (applySeconds, applyPeakMB) = (median(\.applySeconds), median(\.applyPeakMB))
            undoSeconds = median(\.undoSeconds)
        }
    }

    let machine: String
    let runs, photos, copies, sources: Int
    let collections: [String]
    let rows: [Row]

    var markdown: String {
        let head = """
            cleanup-bench: \(machine); \(photos) photos, \(copies) of them copies (half, jpeg30, crop10, \
            brighter25 in turn) of the others (tiles of \(sources) photos of \(collections.joined(separator: ", ")), \
            640 × 480), SQLite, medians of \(runs) runs

            | destination | groups | moved | copies made moved | others moved | left alone | look s | look MB \
            | apply s | apply MB | undo s | apply ÷ look |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
            """
        let lines = rows.map { row in
            "| \(row.destination) | \(row.groups) | \(row.moved) | \(row.copiesMoved) | \(row.othersMoved) | "
                + "\(row.leftAlone) | "
                + String(
                    format: "%.2f | %.0f | %.2f | %.0f | %.2f | %.2f |", row.lookSeconds, row.lookPeakMB,
                    row.applySeconds, row.applyPeakMB, row.undoSeconds, row.applySeconds / row.lookSeconds)
        }
        return ([head] + lines).joined(separator: "\n")
    }
}
