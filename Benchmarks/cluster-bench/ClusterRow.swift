import BenchmarkSupport
import FaceRecognition

/// One figure of cluster-bench: a dataset (or grown gallery) clustered on a device. Field names are the
/// JSON format other tools read: keep them.
struct ClusterRow: Encodable {
    let dataset: String
    let device: String
    let threshold: Float
    let faceNeighbours: Int
    let reach: Float
    let faces: Int
    let people: Int
    let clusters: Int
    let unassigned: Int
    let pairwisePrecision: Double
    let pairwiseRecall: Double
    let pairwiseF1: Double
    let bcubedF1: Double
    let seconds: Double
    let peakMemoryMb: Double

    init(
        dataset: String, device: String, clustering: FaceClustering, faces: Int, people: Int, quality: ClusterQuality,
        seconds: Double,
        peakMemoryMB: Double
    ) {
        self.dataset = dataset
        self.device = device
        threshold = clustering.threshold
        faceNeighbours = clustering.faceNeighbours
        reach = clustering.reach
        self.faces = faces
        self.people = people
        clusters = quality.clusters
        unassigned = quality.unassigned
        pairwisePrecision = quality.pairwisePrecision
        pairwiseRecall = quality.pairwiseRecall
        pairwiseF1 = quality.pairwiseF1
        bcubedF1 = quality.bcubedF1
        self.seconds = seconds
        peakMemoryMb = peakMemoryMB
    }

    static func markdown(_ rows: [ClusterRow], machine: String, runs: Int) -> String {
        var lines = [
            """
            Machine: \(machine). Seconds: median of \(runs) runs after a warm-up; peak memory: the process's peak \
            resident size while they ran.
            """,
            "",
            """
            | dataset | device | threshold | face neighbours | reach | faces | people | clusters | unassigned | \
            pairwise P | pairwise R | pairwise F1 | BCubed F1 | seconds | peak MB |
            """,
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in rows {
            let cells =
                [
                    row.dataset, row.device, String(format: "%.2f", row.threshold), "\(row.faceNeighbours)",
                    String(format: "%.2f", row.reach), "\(row.faces)", "\(row.people)",
                    "\(row.clusters)",
                    "\(row.unassigned)",
                ]
                + [row.pairwisePrecision, row.pairwiseRecall, row.pairwiseF1, row.bcubedF1].map {
                    String(format: "%.3f", $0)
                }
                + [String(format: "%.3f", row.seconds), String(format: "%.0f", row.peakMemoryMb)]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
