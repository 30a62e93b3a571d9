import FaceRecognition
import ImageKernels

extension Reference {
    /// Chi-square distance between two histograms, straight from the definition, in double precision:
    /// symmetric Σ(a−b)²/(a+b) skipping a+b = 0, or asymmetric Σ(e−t)²/e skipping e = 0 (e = `a`).
    public static func chiSquare(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>, form: HistogramDifference.Form)
        -> Double
    {
        var sum = 0.0
        for (x, y) in zip(a, b) {
            let e = Double(x), t = Double(y)
            switch form {
            case .symmetric where e + t > 0: sum += (e - t) * (e - t) / (e + t)
            case .asymmetric where e > 0: sum += (e - t) * (e - t) / e
            default: break
            }
        }
        return sum
    }

    /// Every face's and image's distance to the probe by the matcher's definition, in a plain loop:
    /// nearest first.
    public static func search(
        _ probe: FaceDescriptor, in gallery: [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)],
        options: SearchOptions
    ) -> (faces: [FaceMatch], images: [ImageMatch]) {
        let blocks = probe.parameters.blockCount
        let active = options.weights.weights.enumerated().filter { $0.element > 0 }
        // blockDistance[f][j]: probe block j against face f's block j, or its nearest block.
        let blockDistance: [[Double]] = gallery.map { entry in
            active.map { j, _ in
                let candidates = (0..<blocks).filter {
                    options.compares(j, with: $0, columns: probe.parameters.gridColumns)
                }
                return candidates.map { chiSquare(probe.block(j), entry.descriptor.block($0), form: options.form) }
                    .min() ?? 0
            }
        }
        let faceDistance = blockDistance.map { row in zip(row, active).reduce(0.0) { $0 + Double($1.1.element) * $1.0 }
        }
        let faces = gallery.indices.map {
            FaceMatch(face: gallery[$0].face, image: gallery[$0].image, distance: Float(faceDistance[$0]))
        }
        var images: [ImageMatch] = []
        for (image, members) in Dictionary(grouping: gallery.indices, by: { gallery[$0].image }) {
            let best = members.min { (faceDistance[$0], gallery[$0].face) < (faceDistance[$1], gallery[$1].face) }!
            var distance = faceDistance[best]
            if options.matcher.ranksImages {
                distance = active.indices.reduce(0.0) { total, jj in
                    total + Double(active[jj].element) * members.map { blockDistance[$0][jj] }.min()!
                }
            }
            images.append(ImageMatch(image: image, distance: Float(distance), bestFace: gallery[best].face))
        }
        return (
            faces.sorted { ($0.distance, $0.face) < ($1.distance, $1.face) },
            images.sorted { ($0.distance, $0.image) < ($1.distance, $1.image) }
        )
    }
}

extension Reference {
    /// Each query row's `k` nearest other rows closer than `radius` (Euclidean, double precision, every pair),
    /// nearest first, ties to the lower row: what ``EmbeddingNeighbours`` computes.
    public static func neighbours(of queries: Range<Int>, in rows: [[Float]], k: Int, radius: Float) -> [[(
        row: Int, distance: Float
    )]] {
        func distance(_ a: [Float], _ b: [Float]) -> Float {
            var sum = 0.0
            for (x, y) in zip(a, b) { sum += (Double(x) - Double(y)) * (Double(x) - Double(y)) }
            return Float(sum.squareRoot())
        }
        return queries.map { q in
            let all = rows.indices.filter { $0 != q }.map { j in (row: j, distance: distance(rows[q], rows[j])) }
            let near = all.filter { $0.distance < radius }.sorted { ($0.distance, $0.row) < ($1.distance, $1.row) }
            return Array(near.prefix(k))
        }
    }
}

extension Reference {
    /// Average-linkage clustering from its definition: over every pair of groups, the mean squared distance
    /// between their faces (double precision, every face pair); the closest pair merged while below
    /// `threshold`² × (1 + s)² and `reach`², where s is the larger share of one group's faces' nearest faces
    /// (each face's `faceNeighbours` nearest closer than `reach`, ``neighbours(of:in:k:radius:)``) that
    /// lie in the other, closest first by that distance over (1 + s)², ties to the pair of lower first faces.
    /// Returns each face's group as its lowest face.
    public static func averageLinkage(
        _ rows: [[Float]], threshold: Float, faceNeighbours: Int = 0, reach: Float? = nil
    ) -> [Int] {
        let reach = Double(reach ?? threshold)
        let measure = GroupMeasure(rows, faceNeighbours: faceNeighbours, reach: Float(reach))
        var groups = rows.indices.map { [$0] }
        while groups.count > 1 {
            var best: (priority: Double, a: Int, b: Int)?
            for a in groups.indices {
                for b in a + 1..<groups.count {
                    let squared = measure.meanSquared(groups[a], groups[b]), s = measure.share(groups[a], groups[b])
                    let widening = (1 + s) * (1 + s)
                    guard squared < Double(threshold) * Double(threshold) * widening, squared < reach * reach
                    else { continue }
                    if squared / widening < best?.priority ?? .infinity { best = (squared / widening, a, b) }
                }
            }
            guard let best else { break }
            groups[best.a] += groups[best.b]
            groups.remove(at: best.b)
        }
        var owner = [Int](repeating: 0, count: rows.count)
        for group in groups { for face in group { owner[face] = group.min() ?? face } }
        return owner
    }

    /// Of the groups of `others` (each a list of rows) whose rows lie within `within` of `group`'s on average
    /// (root-mean-square), the `candidates` nearest so, each with that distance over (1 + their link share, as
    /// ``averageLinkage`` counts it), nearest first: the suggestions clustering makes for a group, from their
    /// definition.
    public static func suggestions(
        for group: [Int], among others: [[Int]], rows: [[Float]], faceNeighbours: Int, reach: Float, within: Float,
        candidates: Int
    ) -> [(other: Int, distance: Float)] {
        let measure = GroupMeasure(rows, faceNeighbours: faceNeighbours, reach: reach)
        return others.indices.map { (other: $0, squared: measure.meanSquared(group, others[$0])) }
            .filter { $0.squared < Double(within) * Double(within) }.sorted {
                ($0.squared, $0.other) < ($1.squared, $1.other)
            }
            .prefix(candidates)
            .map { ($0.other, Float($0.squared.squareRoot() / (1 + measure.share(group, others[$0.other])))) }
            .sorted { ($0.distance, $0.other) < ($1.distance, $1.other) }
    }
}

/// How near two groups of rows lie, as average linkage with nearest faces measures it: the mean squared
/// distance over every pair of their rows, and the larger of the two shares of one's rows' nearest rows
/// (the `faceNeighbours` nearest within `reach`) that lie in the other.
private struct GroupMeasure {
    let rows: [[Float]]
    let nearest: [Set<Int>]
    let k: Double

    init(_ rows: [[Float]], faceNeighbours: Int, reach: Float) {
        self.rows = rows
        k = Double(faceNeighbours)
        nearest =
            faceNeighbours > 0
            ? Reference.neighbours(of: rows.indices, in: rows, k: faceNeighbours, radius: reach).map {
                Set($0.map(\.row))
            } : rows.map { _ in [] }
    }

    func meanSquared(_ a: [Int], _ b: [Int]) -> Double {
        var sum = 0.0
        for i in a {
            for j in b {
                for (x, y) in zip(rows[i], rows[j]) { sum += (Double(x) - Double(y)) * (Double(x) - Double(y)) }
            }
        }
        return sum / Double(a.count * b.count)
    }

    func share(_ a: [Int], _ b: [Int]) -> Double {
        guard k > 0 else { return 0 }
        func share(_ a: [Int], in b: [Int]) -> Double {
            let members = Set(b)
            return Double(a.reduce(0) { $0 + nearest[$1].intersection(members).count }) / (Double(a.count) * k)
        }
        return max(share(a, in: b), share(b, in: a))
    }
}
