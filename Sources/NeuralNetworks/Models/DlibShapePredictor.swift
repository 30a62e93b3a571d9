/// A landmark model in dlib's shape-predictor format (dlib/image_processing/shape_predictor.h), such as
/// `shape_predictor_5_face_landmarks.dat`: a mean shape in the face box's unit square, then per cascade
/// level a forest of regression trees and the feature pixels it reads, each an anchor landmark and an
/// offset from it.
public struct DlibShapePredictor: Sendable {
    /// A complete binary tree: split i goes to child 2i+1 when pixel[first] − pixel[second] > threshold,
    /// else 2i+2; past the splits, a leaf adds its vector to the shape.
    public struct Tree: Sendable {
        public var splits: [(first: Int, second: Int, threshold: Float)]
        /// Each leaf's shape increment (x₀, y₀, x₁, y₁, …).
        public var leaves: [[Float]]
    }

    /// One cascade level: its feature pixels and its trees.
    public struct Level: Sendable {
        /// Per feature pixel, the landmark it hangs from.
        public var anchors: [Int]
        /// Per feature pixel, its offset from the anchor in the mean shape's frame.
        public var offsets: [(x: Float, y: Float)]
        public var trees: [Tree]
    }

    /// The starting shape (x₀, y₀, x₁, y₁, …) in the box's unit square.
    public let meanShape: [Float]
    public let levels: [Level]

    /// Landmarks the model places.
    public var landmarkCount: Int { meanShape.count / 2 }

    /// Reads the file at `path`; a missing file's error names `setup`, the command that fetches it.
    public init(contentsOf path: String, setup: String = "bash scripts/setup.sh") throws(ModelError) {
        var archive = try DlibArchive.open(path, setup: setup)
        _ = try archive.integer(in: 1...1, "shape predictor version")
        meanShape = try archive.columnVector()
        let landmarks = meanShape.count / 2
        guard landmarks > 0, meanShape.count % 2 == 0 else {
            throw archive.malformed("a mean shape of \(meanShape.count) values")
        }
        var forests: [[Tree]] = []
        for _ in 0..<(try archive.integer(in: 1...1000, "cascade levels")) {
            var trees: [Tree] = []
            for _ in 0..<(try archive.integer(in: 0...100_000, "trees")) {
                var splits: [(Int, Int, Float)] = []
                for _ in 0..<(try archive.integer(in: 0...65535, "splits")) {
                    splits.append(
                        (
                            try archive.integer(in: 0...1_000_000, "feature index"),
                            try archive.integer(in: 0...1_000_000, "feature index"), try archive.float()
                        ))
                }
                var leaves: [[Float]] = []
                for _ in 0..<(try archive.integer(in: 1...65536, "leaves")) {
                    let start = archive.offset, leaf = try archive.columnVector()
                    guard leaf.count == meanShape.count else {
                        throw archive.malformed("a leaf of \(leaf.count) values", at: start)
                    }
                    leaves.append(leaf)
                }
                guard leaves.count == splits.count + 1 else {
                    throw archive.malformed("a tree of \(splits.count) splits and \(leaves.count) leaves")
                }
                trees.append(Tree(splits: splits, leaves: leaves))
            }
            forests.append(trees)
        }
        var anchors: [[Int]] = []
        for _ in 0..<(try archive.integer(in: 0...1000, "anchor lists")) {
            var list: [Int] = []
            for _ in 0..<(try archive.integer(in: 0...1_000_000, "anchors")) {
                list.append(try archive.integer(in: 0...(landmarks - 1), "anchor"))
            }
            anchors.append(list)
        }
        var offsets: [[(x: Float, y: Float)]] = []
        for _ in 0..<(try archive.integer(in: 0...1000, "offset lists")) {
            var list: [(x: Float, y: Float)] = []
            for _ in 0..<(try archive.integer(in: 0...1_000_000, "offsets")) {
                list.append((try archive.float(), try archive.float()))
            }
            offsets.append(list)
        }
        guard anchors.count == forests.count, offsets.count == forests.count,
            zip(anchors, offsets).allSatisfy({ $0.count == $1.count })
        else {
            throw archive.malformed("feature pixel lists do not match the \(forests.count) cascade levels")
        }
        for (level, trees) in forests.enumerated() {
            for tree in trees where tree.splits.contains(where: { max($0.0, $0.1) >= anchors[level].count }) {
                throw archive.malformed("level \(level) splits on a feature pixel it does not have")
            }
        }
        guard archive.isAtEnd else { throw archive.malformed("unexpected bytes after the model") }
        levels = forests.indices.map { Level(anchors: anchors[$0], offsets: offsets[$0], trees: forests[$0]) }
    }
}

extension DlibArchive {
    /// A dlib column vector (matrix<float,0,1>): rows and columns (negated in current files), then values.
    mutating func columnVector() throws(ModelError) -> [Float] {
        let start = offset
        let rows = abs(try integer()), columns = abs(try integer())
        guard columns == 1, rows <= 1 << 20 else {
            throw malformed("a \(rows)×\(columns) matrix where a column vector belongs", at: start)
        }
        var values: [Float] = []
        for _ in 0..<rows { values.append(try float()) }
        try ModelError.requireFinite(values, tensor: "the column vector", path: path, offset: start)
        return values
    }
}
