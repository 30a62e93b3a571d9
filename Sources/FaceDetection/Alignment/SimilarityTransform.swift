/// A similarity map of the plane, p ↦ [a −b; b a] p + t (rotation, uniform scale, translation), fitted by
/// least squares: the same map as dlib's `find_similarity_transform` (Umeyama's formulas).
struct SimilarityTransform {
    var a: Double, b: Double, tx: Double, ty: Double

    /// The least-squares map from `from` to `to` (equal counts, at least two points).
    static func fitting(_ from: [(x: Double, y: Double)], to: [(x: Double, y: Double)]) -> SimilarityTransform {
        let n = Double(from.count)
        let fx = from.map(\.x).reduce(0, +) / n, fy = from.map(\.y).reduce(0, +) / n
        let tx = to.map(\.x).reduce(0, +) / n, ty = to.map(\.y).reduce(0, +) / n
        var spread = 0.0, dot = 0.0, cross = 0.0
        for (p, q) in zip(from, to) {
            let (px, py, qx, qy) = (p.x - fx, p.y - fy, q.x - tx, q.y - ty)
            spread += px * px + py * py
            dot += px * qx + py * qy
            cross += px * qy - py * qx
        }
        let a = spread > 0 ? dot / spread : 1, b = spread > 0 ? cross / spread : 0
        return SimilarityTransform(a: a, b: b, tx: tx - (a * fx - b * fy), ty: ty - (b * fx + a * fy))
    }

    func apply(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) {
        (a * p.x - b * p.y + tx, b * p.x + a * p.y + ty)
    }
}
