import BenchmarkSupport
import FaceRecognition
import ImageKernels

/// One figure of `cluster-bench --suggestions`: how well a person's page suggests what clustering left
/// apart, and how long the suggestions for the largest person take. Field names are the JSON format other
/// tools read: keep them.
struct SuggestionRow: Encodable {
    let dataset: String
    let device: String
    let faces: Int
    /// People whose faces clustering left in more than one cluster, or partly in none.
    let splitPeople: Int
    /// Of those, how many have another part of themselves (a cluster most of whose faces are theirs, or a
    /// face of theirs in none) as the first suggestion of their largest cluster, and within the first four.
    let firstSuggested: Int
    let withinFour: Int
    /// Suggestions for the largest cluster of a split person, on average.
    let meanSuggestions: Double
    /// The suggestions for the largest cluster: median seconds.
    let seconds: Double

    /// Clusters `faces` (default parameters), then asks for the suggestions of each split person's largest
    /// cluster, and times the largest cluster's `runs` times.
    init(_ faces: GrownFaces, name: String, runs: Int, context: RenderContext) throws {
        let clustering = FaceClustering()
        let labels = try clustering.clusters(of: faces.embeddings, length: faces.length, context: context)
        var members: [Int: [Int]] = [:]
        for (face, label) in labels.enumerated() { if let label { members[label, default: []].append(face) } }
        func owner(_ cluster: Int) -> Int {
            var votes: [Int: Int] = [:]
            for face in members[cluster] ?? [] { votes[faces.truth[face], default: 0] += 1 }
            return votes.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? -1
        }
        var partsOfPerson: [Int: [Int]] = [:], loneOfPerson: [Int: Int] = [:]
        for cluster in members.keys { partsOfPerson[owner(cluster), default: []].append(cluster) }
        for (face, label) in labels.enumerated() where label == nil { loneOfPerson[faces.truth[face], default: 0] += 1 }
        let split = Set(partsOfPerson.filter { $0.value.count > 1 }.keys).union(loneOfPerson.keys)
        var first = 0, four = 0, suggested = 0
        for person in split.sorted() {
            guard
                let cluster = (partsOfPerson[person] ?? []).max(by: {
                    ((members[$0] ?? []).count, $1) < ((members[$1] ?? []).count, $0)
                })
            else { continue }
            let found = try clustering.suggestions(
                for: cluster, of: faces.embeddings, length: faces.length, groups: labels, context: context)
            suggested += found.count
            let rank = found.firstIndex { suggestion in
                switch suggestion.candidate {
                case .group(let other): owner(other) == person
                case .face(let face): faces.truth[face] == person
                }
            }
            if rank == 0 { first += 1 }
            if let rank, rank < 4 { four += 1 }
        }
        let largest = members.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }?.key ?? 0
        dataset = name
        device = "\(context.device.kind)"
        self.faces = faces.truth.count
        splitPeople = split.count
        firstSuggested = first
        withinFour = four
        meanSuggestions = Double(suggested) / Double(max(split.count, 1))
        seconds = try medianSeconds(runs: runs) {
            _ = try clustering.suggestions(
                for: largest, of: faces.embeddings, length: faces.length, groups: labels, context: context)
        }
    }

    static func markdown(_ rows: [SuggestionRow], machine: String, runs: Int) -> String {
        var lines = [
            """
            Machine: \(machine). Seconds: the suggestions for the largest cluster, median of \(runs) runs after \
            a warm-up.
            """,
            "",
            "| dataset | device | faces | split people | first suggested | within four | suggestions | seconds |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row in rows {
            let cells = [
                row.dataset, row.device, "\(row.faces)", "\(row.splitPeople)", "\(row.firstSuggested)",
                "\(row.withinFour)", String(format: "%.1f", row.meanSuggestions), String(format: "%.3f", row.seconds),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
