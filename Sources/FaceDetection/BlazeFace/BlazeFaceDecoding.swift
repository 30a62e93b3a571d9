import Foundation
import ImageKernels

/// A face found by BlazeFace: its box, its score and six keypoints, in the coordinates of the image it
/// was decoded for (the model's input square in 0…1, then the photo's pixels).
public struct BlazeFaceDetection: Hashable, Sendable {
    /// The box's top-left corner and size.
    public var x: Float, y: Float, width: Float, height: Float
    /// The probability that this is a face, 0…1.
    public var score: Float
    /// In MediaPipe's order: right eye, left eye, nose tip, mouth centre, right ear tragion, left ear
    /// tragion ("right" is the person's: the one further left in the image).
    public var keypoints: [ImagePoint]
    /// How many anchors' detections were merged into this one.
    public var anchors: Int

    public init(
        x: Float, y: Float, width: Float, height: Float, score: Float, keypoints: [ImagePoint], anchors: Int = 1
    ) {
        (self.x, self.y, self.width, self.height, self.score, self.keypoints, self.anchors) = (
            x, y, width, height, score, keypoints, anchors
        )
    }

    /// As the cascades report faces: the box clipped to a `width` × `height` photo, the eyes (from the
    /// keypoints, the one further left first) and the merged anchors as the supporting detections, with
    /// the score and keypoints.
    public func observation(clippedTo width: Int, _ height: Int) -> FaceObservation {
        let eyes = keypoints[0].x <= keypoints[1].x ? (keypoints[0], keypoints[1]) : (keypoints[1], keypoints[0])
        return FaceObservation(
            rect: rect(clippedTo: width, height), eyes: (left: eyes.0, right: eyes.1), neighbours: anchors,
            score: score, keypoints: keypoints)
    }

    /// The same face boxed as the cascades box faces, for indexing, which crops and places landmarks by
    /// the cascades' boxes: BlazeFace's box moved up by a tenth of its width (the median offset over the
    /// shared wild photos' faces that both find was 0.097 of the width; their sizes differ by 3 %).
    public var boxedAsCascades: BlazeFaceDetection {
        var moved = self
        moved.y -= 0.1 * width
        return moved
    }

    /// The box rounded to whole pixels, clipped to a `width` × `height` photo.
    public func rect(clippedTo width: Int, _ height: Int) -> PixelRect {
        let left = max(Int(x.rounded()), 0), top = max(Int(y.rounded()), 0)
        let right = min(Int((x + self.width).rounded()), width), bottom = min(Int((y + self.height).rounded()), height)
        return PixelRect(x: left, y: top, width: max(right - left, 0), height: max(bottom - top, 0))
    }

    /// Intersection over union with `other`'s box (0 when they do not meet).
    func overlap(with other: BlazeFaceDetection) -> Float {
        let intersection = intersection(with: other)
        return intersection / (width * height + other.width * other.height - intersection)
    }

    /// Whether this box lies mostly (at least 80 % of it) inside `other`'s, a wider one: then it is a part
    /// of that face (an eye behind glasses, a mouth), not a face of its own. MediaPipe keeps such boxes,
    /// since its suppression merges only boxes whose overlap is 0.3 of their union.
    public func isPart(of other: BlazeFaceDetection) -> Bool {
        other.width > width && intersection(with: other) >= 0.8 * width * height
    }

    /// The area this box and `other`'s share.
    private func intersection(with other: BlazeFaceDetection) -> Float {
        let w = min(x + width, other.x + other.width) - max(x, other.x),
            h = min(y + height, other.y + other.height) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }
}

/// MediaPipe's decoding of BlazeFace's outputs (its SSD anchors, TensorsToDetections and weighted
/// non-maximum suppression calculators, with the face detection graphs' options).
enum BlazeFaceDecoding {
    /// Anchor centres in 0…1 of the input square, in the model's output order: for each feature map
    /// (stride, anchors per cell), row by row, cell by cell. Anchors have a fixed size of 1 × 1.
    static func anchors(inputSize: Int, layers: [(stride: Int, anchorsPerCell: Int)]) -> [ImagePoint] {
        var anchors: [ImagePoint] = []
        for (stride, perCell) in layers {
            let cells = (inputSize + stride - 1) / stride
            for y in 0..<cells {
                for x in 0..<cells {
                    let centre = ImagePoint(x: (Float(x) + 0.5) / Float(cells), y: (Float(y) + 0.5) / Float(cells))
                    anchors += repeatElement(centre, count: perCell)
                }
            }
        }
        return anchors
    }

    /// The faces scoring at least `threshold`, in the input square's 0…1 coordinates: each anchor's 16
    /// regressors (box centre and size, six keypoints, in input pixels from the anchor) and its logit
    /// (clipped to ±100, then the sigmoid), merged by weighted non-maximum suppression at IoU 0.3.
    static func detections(
        regressors: [Float], scores: [Float], anchors: [ImagePoint], inputSize: Int,
        threshold: Float
    ) -> [BlazeFaceDetection] {
        let scale = Float(inputSize)
        var candidates: [BlazeFaceDetection] = []
        for (index, anchor) in anchors.enumerated() {
            let score = 1 / (1 + exp(-min(max(scores[index], -100), 100)))
            guard score >= threshold else { continue }
            let r = regressors[index * 16..<index * 16 + 16].map { $0 / scale }
            let centre = ImagePoint(x: r[0] + anchor.x, y: r[1] + anchor.y)
            candidates.append(
                BlazeFaceDetection(
                    x: centre.x - r[2] / 2, y: centre.y - r[3] / 2, width: r[2], height: r[3], score: score,
                    keypoints: (0..<6).map { ImagePoint(x: r[4 + 2 * $0] + anchor.x, y: r[5 + 2 * $0] + anchor.y) }))
        }
        return weightedSuppression(candidates, overlap: 0.3)
    }

    /// MediaPipe's weighted non-maximum suppression: the best remaining detection takes every remaining
    /// one overlapping it by more than `overlap` (itself included) and becomes their score-weighted mean
    /// box and keypoints, keeping its own score.
    static func weightedSuppression(_ detections: [BlazeFaceDetection], overlap: Float) -> [BlazeFaceDetection] {
        var remaining = detections.sorted { $0.score > $1.score }, result: [BlazeFaceDetection] = []
        while let best = remaining.first {
            let overlapping = remaining.map { $0.overlap(with: best) > overlap }
            let group = zip(remaining, overlapping).filter(\.1).map(\.0)
            remaining = zip(remaining, overlapping).filter { !$0.1 }.map(\.0)
            var merged = best
            merged.anchors = group.count
            let total = group.reduce(0) { $0 + $1.score }
            if !group.isEmpty {
                func mean(_ value: (BlazeFaceDetection) -> Float) -> Float {
                    group.reduce(0) { $0 + value($1) * $1.score } / total
                }
                let left = mean(\.x), top = mean(\.y), right = mean { $0.x + $0.width },
                    bottom = mean { $0.y + $0.height }
                (merged.x, merged.y, merged.width, merged.height) = (left, top, right - left, bottom - top)
                merged.keypoints = best.keypoints.indices.map { k in
                    ImagePoint(x: mean { $0.keypoints[k].x }, y: mean { $0.keypoints[k].y })
                }
            }
            result.append(merged)
            if group.isEmpty { break }
        }
        return result
    }
}
