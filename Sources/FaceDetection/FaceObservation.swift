import Foundation
import ImageKernels

/// A point in image pixel coordinates (x right, y down).
public struct ImagePoint: Hashable, Sendable, Codable {
    public var x: Float
    public var y: Float

    public init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }
}

/// A face found in a photo: where it is, how far it leans in the image plane, where its eyes are, and
/// how many raw detections support it.
public struct FaceObservation: Hashable, Sendable {
    /// The detector's box around the face.
    public let rect: PixelRect
    /// The eyes' centres, the one further left in the image first; nil when the eye search failed.
    public let eyes: (left: ImagePoint, right: ImagePoint)?
    /// Radians by which the face is turned clockwise on screen (the line through the eyes, y down); 0 when
    /// the eyes were not found. Rotating the face by this angle about its centre levels the eyes.
    public var angle: Float {
        guard let eyes else { return 0 }
        return atan2(eyes.right.y - eyes.left.y, eyes.right.x - eyes.left.x)
    }
    /// Whether the eyes were found, and so the aligned crop is rotated.
    public var isAligned: Bool { eyes != nil }
    /// Raw detections merged into this face: the detector's confidence.
    public let neighbours: Int
    /// The probability that this is a face, 0…1, from detectors that score (BlazeFace); nil from the cascades.
    public let score: Float?
    /// Landmarks the detector placed, in its order (BlazeFace: right eye, left eye, nose tip, mouth centre,
    /// right ear, left ear); empty from the cascades.
    public let keypoints: [ImagePoint]

    /// The box dlib's landmark model expects for this face: the cascades' boxes are about 12 % wider than
    /// those of dlib's HOG detector, which the model was trained on, and sit about 9 % of their width
    /// higher (median over the shared wild photos' faces, both detectors run on them).
    public var landmarkBox: PixelRect {
        let side = Float(rect.width) * 0.88
        let centerX = Float(rect.x) + Float(rect.width) / 2,
            centerY = Float(rect.y) + Float(rect.height) / 2 + 0.09 * Float(rect.width)
        return PixelRect(
            x: Int((centerX - side / 2).rounded()), y: Int((centerY - side / 2).rounded()),
            width: Int(side.rounded()), height: Int(side.rounded()))
    }

    public init(
        rect: PixelRect, eyes: (left: ImagePoint, right: ImagePoint)?, neighbours: Int, score: Float? = nil,
        keypoints: [ImagePoint] = []
    ) {
        self.rect = rect
        self.eyes = eyes
        self.neighbours = neighbours
        self.score = score
        self.keypoints = keypoints
    }

    public static func == (a: FaceObservation, b: FaceObservation) -> Bool {
        a.rect == b.rect && a.neighbours == b.neighbours && a.eyes?.left == b.eyes?.left
            && a.eyes?.right == b.eyes?.right
            && a.score == b.score && a.keypoints == b.keypoints
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rect)
        hasher.combine(neighbours)
        hasher.combine(eyes?.left)
        hasher.combine(eyes?.right)
        hasher.combine(score)
        hasher.combine(keypoints)
    }
}
