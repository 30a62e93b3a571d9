import Foundation

/// Markdown tables of a benchmark run.
enum Report {
    static func markdown(_ output: NBNNBench.Output, runs: Int) -> String {
        var lines = ["# nbnn-bench", "", "Machine: \(output.machine)", ""]
        if !output.speed.isEmpty {
            lines += [
                "## Speed (seconds per query, median after a warm-up; uniform weights, 8×8 grid)", "",
                "| matcher | path | device | bins | gallery faces | runs | seconds/query | × naive | bytes/face |",
                "|---|---|---|---:|---:|---:|---:|---:|---:|",
            ]
            for row in output.speed {
                let naive = output.speed.first {
                    $0.path == "naive" && $0.matcher == row.matcher && $0.bins == row.bins
                        && $0.galleryFaces == row.galleryFaces
                }
                let ratio = naive.map { String(format: "%.0f", $0.secondsPerQuery / row.secondsPerQuery) } ?? "–"
                lines.append(
                    """
                    | \(row.matcher) | \(row.path) | \(row.device) | \(row.bins) | \(row.galleryFaces) | \
                    \(row.runs) | \
                    \(seconds(row.secondsPerQuery)) | \(ratio) | \(row.bytesPerFace) |
                    """)
            }
            lines.append("")
        }
        if !output.embeddingSpeed.isEmpty {
            lines += [
                "## Embedding speed (faces per second: landmarks, chip and ResNet; ORL images, median after a warm-up)",
                "",
                "| device | faces per batch | runs | faces/s |", "|---|---:|---:|---:|",
            ]
            for row in output.embeddingSpeed {
                lines.append(
                    "| \(row.device) | \(row.batch) | \(row.runs) | " + String(format: "%.1f", row.facesPerSecond)
                        + " |")
            }
            lines.append("")
        }
        if let missed = output.missedDetections {
            lines += ["Images where detection found no face (left out of the accuracy figures): \(missed)", ""]
        }
        if let failures = output.detectionFailures, !failures.isEmpty {
            lines += [
                "## Wrong answers by embedding with detection, by stage", "",
                "Wrong face: another face found in the probe's photo is the person. Wrong match: none is.", "",
                "| dataset | protocol | probes | wrong face | wrong match |", "|---|---|---:|---:|---:|",
            ]
            for row in failures {
                lines.append(
                    "| \(row.dataset) | \(row.protocol) | \(row.probes) | \(row.wrongFace) | \(row.wrongMatch) |")
            }
            lines.append("")
        }
        if !output.stages.isEmpty {
            lines += [
                "## Embedding rank-1 by stage (one stage done another way)", "",
                "| dataset | protocol | stage | probes | rank-1 |", "|---|---|---|---:|---:|",
            ]
            for row in output.stages {
                lines.append(
                    "| \(row.dataset) | \(row.protocol) | \(row.stage) | \(row.probes) | "
                        + String(format: "%.3f", row.rank1) + " |")
            }
            lines.append("")
        }
        if !output.accuracy.isEmpty {
            var matchers: [String] = []
            for row in output.accuracy where !matchers.contains(row.matcher) { matchers.append(row.matcher) }
            lines += [
                "## Rank-1 accuracy", "",
                "| dataset | protocol | configuration | " + matchers.joined(separator: " | ") + " |",
                "|---|---|---|" + String(repeating: "---:|", count: matchers.count),
            ]
            var seen: Set<String> = []
            for row in output.accuracy where seen.insert(row.dataset + row.protocol + row.config).inserted {
                let values = matchers.map { matcher in
                    output.accuracy.first {
                        $0.dataset == row.dataset && $0.protocol == row.protocol && $0.config == row.config
                            && $0.matcher == matcher
                    }.map { String(format: "%.3f", $0.rank1) } ?? "–"
                }
                lines.append(
                    "| \(row.dataset) | \(row.protocol) | \(row.config) | " + values.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func seconds(_ value: Double) -> String {
        value < 0.01 ? String(format: "%.5f", value) : String(format: "%.4f", value)
    }
}
