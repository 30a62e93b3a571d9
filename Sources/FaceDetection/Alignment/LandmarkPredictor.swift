import ImageKernels
import NeuralNetworks

/// dlib's 5-point face landmarks (`shape_predictor_5_face_landmarks.dat`): the outer and inner corner of
/// each eye and the base of the nose, placed in a face box by a cascade of regression-tree forests
/// (Kazemi and Sullivan, 2014), evaluated as dlib evaluates them.
public struct LandmarkPredictor: Sendable {
    /// The model's file name in the model cache.
    public static let modelFile = "shape_predictor_5_face_landmarks.dat"
    /// The model's mean shape (x, y pairs in the box's unit square).
    private let meanShape: [Float]
    /// Each level's feature pixels: the landmark each is anchored to and its offset from it.
    private let levels: [(anchors: [Int], offsets: [(x: Float, y: Float)])]
    /// Every level's trees, laid out flat for evaluation (the model's nested trees are not kept).
    private let trees: FlatTrees

    /// Loads the model from `path` (default: the model cache).
    public init(modelPath: String = ModelCache.path(of: LandmarkPredictor.modelFile)) throws(ModelError) {
        let model = try DlibShapePredictor(contentsOf: modelPath, setup: ModelCache.setupCommand)
        meanShape = model.meanShape
        levels = model.levels.map { ($0.anchors, $0.offsets) }
        guard let trees = FlatTrees(model) else {
            throw .unsupported(
                path: modelPath,
                what:
                    "trees of unequal depth, or on more than 65,536 feature pixels (dlib grows every tree to one depth)"
            )
        }
        self.trees = trees
    }

    /// The landmarks of the face in `box` of the first image of `photo` (uint8, gray or RGB(A), read as
    /// dlib reads it: the integer mean of red, green and blue), rounded to whole pixels as dlib returns them.
    public func landmarks(in photo: PixelBuffer, box: PixelRect) -> [ImagePoint] {
        let intensity = Intensity(photo)
        // The box's unit square to pixels: dlib's rectangle has inclusive right and bottom edges.
        let left = Double(box.x), top = Double(box.y)
        let spanX = Double(box.width - 1), spanY = Double(box.height - 1)
        var shape = meanShape
        let mean = stride(from: 0, to: shape.count, by: 2).map { (x: Double(shape[$0]), y: Double(shape[$0 + 1])) }
        var features: [Int] = []
        for (levelIndex, level) in levels.enumerated() {
            let current = stride(from: 0, to: shape.count, by: 2).map {
                (x: Double(shape[$0]), y: Double(shape[$0 + 1]))
            }
            let fit = SimilarityTransform.fitting(mean, to: current)
            let (a, b) = (Float(fit.a), Float(fit.b))
            features.removeAll(keepingCapacity: true)
            for (anchor, offset) in zip(level.anchors, level.offsets) {
                let x = a * offset.x - b * offset.y + shape[2 * anchor],
                    y = b * offset.x + a * offset.y + shape[2 * anchor + 1]
                features.append(
                    intensity.at(x: Self.rounded(left + Double(x) * spanX), y: Self.rounded(top + Double(y) * spanY)))
            }
            trees.add(level: levelIndex, features: features, to: &shape)
        }
        return stride(from: 0, to: shape.count, by: 2).map {
            ImagePoint(
                x: Float(Self.rounded(left + Double(shape[$0]) * spanX)),
                y: Float(Self.rounded(top + Double(shape[$0 + 1]) * spanY)))
        }
    }

    /// The box in which the model's mean shape best fits `landmarks` (least squares over position and
    /// size): the box dlib's detector would most likely have given for this face. Predicting again in it
    /// corrects a box from another detector.
    public func box(fitting landmarks: [ImagePoint]) -> PixelRect {
        let mean = stride(from: 0, to: meanShape.count, by: 2).map {
            (x: Double(meanShape[$0]), y: Double(meanShape[$0 + 1]))
        }
        let points = landmarks.map { (x: Double($0.x), y: Double($0.y)) }
        let n = Double(mean.count)
        let meanX = mean.map(\.x).reduce(0, +) / n, meanY = mean.map(\.y).reduce(0, +) / n
        let pointX = points.map(\.x).reduce(0, +) / n, pointY = points.map(\.y).reduce(0, +) / n
        var covariance = 0.0, variance = 0.0
        for (m, p) in zip(mean, points) {
            covariance += (m.x - meanX) * (p.x - pointX) + (m.y - meanY) * (p.y - pointY)
            variance += (m.x - meanX) * (m.x - meanX) + (m.y - meanY) * (m.y - meanY)
        }
        let span = variance > 0 ? covariance / variance : 1  // the box's width − 1 and height − 1
        let left = pointX - span * meanX, top = pointY - span * meanY
        let side = max(1, Int((span + 1).rounded()))
        return PixelRect(x: Int(left.rounded()), y: Int(top.rounded()), width: side, height: side)
    }

    /// dlib's conversion of a point to pixel indices: floor(v + 0.5).
    static func rounded(_ value: Double) -> Int {
        Int((value + 0.5).rounded(.down))
    }

    /// The trees of every level back to back in flat arrays: the nested arrays of ``DlibShapePredictor``
    /// cost a reference count and a bounds check at every node. dlib grows every tree to one depth
    /// (complete binary trees), so each tree's splits and leaves lie at fixed strides.
    private struct FlatTrees: Sendable {
        /// One split: the two feature pixels it compares (16 bits each: the 112,500 splits of
        /// dlib's 5-point model take 900 KB) and its threshold.
        struct Split {
            let first: UInt16, second: UInt16
            let threshold: Float
        }

        /// Level l's trees are trees levelStarts[l] ..< levelStarts[l + 1].
        let levelStarts: [Int]
        /// Every tree's depth: 2^depth − 1 splits, then 2^depth leaves of `shapeCount` values each.
        let depth: Int
        /// Every tree's splits, tree by tree.
        let splits: [Split]
        let leaves: [Float]
        let shapeCount: Int

        /// Nil unless every tree is complete and of one depth, and splits on one of its level's first
        /// 65,536 feature pixels.
        init?(_ model: DlibShapePredictor) {
            let all = model.levels.flatMap(\.trees)
            let splitCount = all.first?.splits.count ?? 0
            guard (splitCount + 1) & splitCount == 0,
                all.allSatisfy({
                    $0.splits.count == splitCount && $0.splits.allSatisfy { max($0.first, $0.second) <= 65535 }
                })
            else { return nil }
            var levelStarts = [0]
            for level in model.levels { levelStarts.append(levelStarts[levelStarts.count - 1] + level.trees.count) }
            self.levelStarts = levelStarts
            depth = (splitCount + 1).trailingZeroBitCount
            splits = all.flatMap {
                $0.splits.map { Split(first: UInt16($0.first), second: UInt16($0.second), threshold: $0.threshold) }
            }
            leaves = all.flatMap { $0.leaves.joined() }
            shapeCount = model.meanShape.count
        }

        /// Adds the leaf each tree of `level` reaches with these feature pixels to `shape`, tree by tree
        /// as dlib does. Split i goes to child 2i+1 when first − second > threshold, else 2i+2. The walk
        /// is bound by the latency of its loads (the model is larger than the cache), so four trees are
        /// walked side by side without branches, which lets their loads overlap, then their leaves added
        /// in order.
        func add(level: Int, features: [Int], to shape: inout [Float]) {
            let splitCount = (1 << depth) - 1, leafValues = (splitCount + 1) * shapeCount
            features.withUnsafeBufferPointer { features in
                splits.withUnsafeBufferPointer { splits in
                    leaves.withUnsafeBufferPointer { leaves in
                        shape.withUnsafeMutableBufferPointer { shape in
                            @inline(__always) func child(_ tree: Int, _ node: Int) -> Int {
                                let split = splits[tree &* splitCount &+ node]
                                let right =
                                    Float(features[Int(split.first)] &- features[Int(split.second)]) > split.threshold
                                return 2 &* node &+ 2 &- Int(unsafeBitCast(right, to: UInt8.self))
                            }
                            var tree = levelStarts[level]
                            let end = levelStarts[level + 1]
                            while tree < end {
                                let group = min(4, end - tree)
                                var nodes = (0, 0, 0, 0)
                                for _ in 0..<depth {
                                    // Trees past the level's end walk the last one again, unread.
                                    nodes = (
                                        child(tree, nodes.0), child(min(tree + 1, end - 1), nodes.1),
                                        child(min(tree + 2, end - 1), nodes.2), child(min(tree + 3, end - 1), nodes.3)
                                    )
                                }
                                for k in 0..<group {
                                    let node = k == 0 ? nodes.0 : k == 1 ? nodes.1 : k == 2 ? nodes.2 : nodes.3
                                    let leaf = (tree + k) * leafValues + (node - splitCount) * shapeCount
                                    for i in 0..<shapeCount { shape[i] += leaves[leaf + i] }
                                }
                                tree += group
                            }
                        }
                    }
                }
            }
        }
    }

    /// Pixel intensities as dlib reads them: gray values, or (r + g + b) / 3 in integers; 0 outside.
    private struct Intensity {
        let bytes: [UInt8]
        let width: Int, height: Int, channels: Int

        init(_ photo: PixelBuffer) {
            bytes = photo.bytes
            (width, height, channels) = (photo.descriptor.width, photo.descriptor.height, photo.descriptor.channels)
        }

        func at(x: Int, y: Int) -> Int {
            guard x >= 0, y >= 0, x < width, y < height else { return 0 }
            let index = y * width + x
            guard channels >= 3 else { return Int(bytes[index]) }
            let plane = width * height
            return (Int(bytes[index]) + Int(bytes[plane + index]) + Int(bytes[2 * plane + index])) / 3
        }
    }
}
