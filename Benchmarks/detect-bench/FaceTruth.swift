import Foundation

/// A face box in a photo's pixels.
struct Box: Sendable {
    var x: Double, y: Double, width: Double, height: Double

    /// Intersection over union (0 when the boxes do not meet).
    func overlap(with other: Box) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x),
            h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        return w * h / (width * height + other.width * other.height - w * h)
    }
}

/// The faces checked by eye in each wild photo (`faces.json` beside this file), and how a detector's
/// boxes score against them.
struct FaceTruth {
    /// Photo path under wild-photos → its faces.
    let faces: [String: [Box]]

    init(contentsOf path: String) throws {
        struct File: Decodable { let faces: [String: [[Double]]] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        faces = file.faces.mapValues { $0.map { Box(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) } }
    }

    /// A detector's boxes on every photo scored: each box, strongest first, claims the unclaimed face it
    /// overlaps most if their IoU is at least 0.3 (the detectors frame faces differently: the cascades
    /// include more forehead); boxes that claim none are false, faces none claims are missed.
    /// Missed faces are named by photo and number in `faces.json`, false boxes by photo.
    func score(_ found: [String: [Box]]) -> (hits: Int, falseBoxes: [String], missed: [String]) {
        var hits = 0, falseBoxes: [String] = [], missed: [String] = []
        for (photo, truth) in faces.sorted(by: { $0.key < $1.key }) {
            var unclaimed = Array(truth.indices)
            for box in found[photo] ?? [] {
                let best = unclaimed.max { box.overlap(with: truth[$0]) < box.overlap(with: truth[$1]) }
                if let best, box.overlap(with: truth[best]) >= 0.3 {
                    hits += 1
                    unclaimed.removeAll { $0 == best }
                } else {
                    falseBoxes.append(photo)
                }
            }
            missed += unclaimed.map { "\(photo) #\($0 + 1)" }
        }
        return (hits, falseBoxes, missed)
    }
}
