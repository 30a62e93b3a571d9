import BenchmarkSupport

/// One figure of cluster-bench: a dataset (or grown gallery) clustered on a device. Field names are the
/// JSON format other tools read: keep them.
struct ClusterRow: Encodable {
    let dataset: String
    let device: String
    let threshold: Float
    let faces: Int
    let people: Int
    let clusters: Int
    let unassigned: Int
    let pairwise_precision: Double
    let pairwise_recall: Double
    let pairwise_f1: Double
    let bcubed_f1: Double
    let seconds: Double
    let peak_memory_mb: Double

    init(dataset: String, device: String, threshold: Float, faces: Int, people: Int, quality: ClusterQuality, seconds: Double,
         peakMemoryMB: Double) {
        self.dataset = dataset
        self.device = device
        self.threshold = threshold
        self.faces = faces
        self.people = people
        clusters = quality.clusters
        unassigned = quality.unassigned
        pairwise_precision = quality.pairwisePrecision
        pairwise_recall = quality.pairwiseRecall
        pairwise_f1 = quality.pairwiseF1
        bcubed_f1 = quality.bcubedF1
        self.seconds = seconds
        peak_memory_mb = peakMemoryMB
    }

    static func markdown(_ rows: [ClusterRow], machine: String, runs: Int) -> String {
        var lines = ["Machine: \(machine). Seconds: median of \(runs) runs after a warm-up; peak memory: the process's peak resident size while they ran.",
                     "",
                     "| dataset | device | threshold | faces | people | clusters | unassigned | pairwise P | pairwise R | pairwise F1 | BCubed F1 | seconds | peak MB |",
                     "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for row in rows {
            let cells = [row.dataset, row.device, String(format: "%.2f", row.threshold), "\(row.faces)", "\(row.people)", "\(row.clusters)",
                         "\(row.unassigned)"] + [row.pairwise_precision, row.pairwise_recall, row.pairwise_f1, row.bcubed_f1].map { String(format: "%.3f", $0) }
                + [String(format: "%.3f", row.seconds), String(format: "%.0f", row.peak_memory_mb)]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
