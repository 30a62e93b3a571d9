import ImageKernels

/// A detection after grouping: the averaged rectangle and how many raw detections support it.
public struct Detection: Sendable, Equatable, CustomStringConvertible {
    public let rect: PixelRect
    /// Raw window detections merged into this one: the detection's confidence.
    public let neighbours: Int

    public var description: String { "\(rect) ×\(neighbours)" }
}

/// OpenCV's `groupRectangles`: rectangles are similar when all four edges differ by at most
/// eps·(min(w₁, w₂) + min(h₁, h₂))/2; clusters (transitive closure) of at most `minNeighbors` are dropped;
/// a cluster's rectangle is the mean of its members; a cluster inside a stronger one is dropped.
enum RectangleGrouping {
    static func group(_ rects: [PixelRect], minNeighbors: Int, eps: Double = 0.2) -> [Detection] {
        guard minNeighbors > 0 else { return rects.map { Detection(rect: $0, neighbours: 1) } }
        // Components of the similarity relation.
        var components = ConnectedComponents(count: rects.count)
        for i in rects.indices {
            for j in 0..<i where similar(rects[i], rects[j], eps) { components.link(i, j) }
        }
        var sums: [Int: (x: Int, y: Int, width: Int, height: Int, count: Int)] = [:]
        for (i, r) in rects.enumerated() {
            let label = components.label(of: i)
            let s = sums[label] ?? (0, 0, 0, 0, 0)
            sums[label] = (s.x + r.x, s.y + r.y, s.width + r.width, s.height + r.height, s.count + 1)
        }
        let clusters = sums.keys.sorted().map { label -> Detection in
            let s = sums[label]!  // the key comes from the dictionary itself
            let scale = 1 / Float(s.count)
            func mean(_ total: Int) -> Int { Int((Float(total) * scale).rounded(.toNearestOrEven)) }
            return Detection(
                rect: PixelRect(x: mean(s.x), y: mean(s.y), width: mean(s.width), height: mean(s.height)),
                neighbours: s.count)
        }
        return clusters.filter { candidate in
            guard candidate.neighbours > minNeighbors else { return false }
            let r1 = candidate.rect, n1 = candidate.neighbours
            return !clusters.contains { other in
                let r2 = other.rect, n2 = other.neighbours
                guard other != candidate, n2 > minNeighbors else { return false }
                let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven)),
                    dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
                return r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
                    && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3)
            }
        }
    }

    static func similar(_ a: PixelRect, _ b: PixelRect, _ eps: Double) -> Bool {
        let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
        return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
            && Double(abs(a.x + a.width - b.x - b.width)) <= delta
            && Double(abs(a.y + a.height - b.y - b.height)) <= delta
    }
}
