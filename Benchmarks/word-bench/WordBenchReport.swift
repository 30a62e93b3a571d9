import Foundation
import PhotoSimilarity

/// word-bench's figures. Field names are the JSON format other tools read: keep them.
struct WordBenchReport: Encodable {
    /// How one word ranks the collection when each photo keeps `kept` classes.
    struct Score: Encodable {
        let kept: Int
        let word: String
        /// With the word's own classes withheld, the power of nearness the classes near it were weighted by.
        let power: Double?
        /// How many classes the word names, and whether they are the nearest (none lies under it).
        let classes: Int
        let nearest: Bool
        let relevant: Int
        let averagePrecision: Double
        let precisionAt10: Double

        /// The scores of a ranking whose photos, best first, are relevant where `hits` says.
        init(kept: Int, word: String, power: Double?, classes: Int, nearest: Bool, hits: [Bool]) {
            (self.kept, self.word, self.power, self.classes, self.nearest) = (kept, word, power, classes, nearest)
            var found = 0, sum = 0.0
            for (rank, hit) in hits.enumerated() where hit {
                found += 1
                sum += Double(found) / Double(rank + 1)
            }
            relevant = found
            averagePrecision = found == 0 ? 0 : sum / Double(found)
            precisionAt10 = Double(hits.prefix(10).filter { $0 }.count) / 10
        }
    }

    /// How long a word takes among `photos` stored classes: WordNet looked up, every photo scored, the best
    /// 100 kept.
    struct Timing: Encodable {
        let photos: Int
        let words: String
        let seconds: Double
    }

    let machine: String
    let runs: Int
    let photos: Int
    let storedCount: Int
    let scores: [Score]
    /// Each word with classes of its own ranked without them, at each power of nearness.
    let withheld: [Score]
    /// Reading WordNet's noun files and the class list.
    let loadingSeconds: Double
    let timings: [Timing]

    var markdown: String {
        var lines = ["Machine: \(machine); medians of \(runs) runs", ""]
        lines += ["Photos found by a word: \(photos) photos, each word's ranking of all", ""]
        lines += ["| classes kept | mAP | P@10 |", "|---:|---:|---:|"]
        let counts = Set(scores.map(\.kept)).sorted()
        for count in counts {
            let rows = scores.filter { $0.kept == count }
            let mean = { (value: (Score) -> Double) in rows.map(value).reduce(0, +) / Double(rows.count) }
            lines.append(
                "| \(count)\(count == storedCount ? " (stored)" : "") | "
                    + String(format: "%.3f | %.3f |", mean(\.averagePrecision), mean(\.precisionAt10)))
        }
        lines += ["", "Each word, \(storedCount) classes kept:", ""]
        lines += ["| word | classes | relevant | AP | P@10 |", "|---|---:|---:|---:|---:|"]
        for row in scores where row.kept == storedCount {
            lines.append(
                "| \(row.word) | \(row.classes)\(row.nearest ? " near" : "") | \(row.relevant) | "
                    + String(format: "%.3f | %.2f |", row.averagePrecision, row.precisionAt10))
        }
        lines += ["", "Each word's own classes withheld, the classes near it weighted by nearness to a power:", ""]
        lines += ["| power | mAP | P@10 | words |", "|---:|---:|---:|---:|"]
        for power in Set(withheld.compactMap(\.power)).sorted() {
            let rows = withheld.filter { $0.power == power }
            let mean = { (value: (Score) -> Double) in rows.map(value).reduce(0, +) / Double(rows.count) }
            lines.append(
                "| \(power.isInfinite ? "∞ (the nearest alone)" : String(format: "%.0f", power))"
                    + "\(power == WordClasses.nearnessPower ? " (used)" : "") | "
                    + String(format: "%.3f | %.3f | %d |", mean(\.averagePrecision), mean(\.precisionAt10), rows.count))
        }
        lines += ["", String(format: "Reading WordNet 3.0's nouns and the class list: %.0f ms", loadingSeconds * 1000)]
        lines += ["", "| photos | words | ms per query |", "|---:|---|---:|"]
        for timing in timings {
            lines.append("| \(timing.photos) | \(timing.words) | " + String(format: "%.2f |", timing.seconds * 1000))
        }
        return lines.joined(separator: "\n")
    }
}
