import Foundation
import ImageKernels

/// dlib's face chip for one face: the 150 × 150 crop its face ResNet reads, where the 5 landmarks land
/// on dlib's template (padding 0.25 around it), cut from the photo exactly as dlib's `get_face_chip` cuts
/// it: large faces from its image pyramid, bilinear samples rounded down, black where the chip leaves the
/// photo.
public struct FaceChip: Sendable {
    /// The chip's side in pixels.
    public static let size = 150
    /// The margin around dlib's 5-point template, as a fraction of its size.
    public static let padding = 0.25
    /// dlib's 5-point template in the unit square: outer and inner corner of each eye, then the nose.
    static let template: [(x: Double, y: Double)] = [
        (0.8595674595992, 0.2134981538014), (0.6460604764104, 0.2289674387677),
        (0.1205750620789, 0.2137274526848), (0.3340850613712, 0.2290642403242),
        (0.4901123135679, 0.6277975316475),
    ]

    /// The chip's square in the photo before rotation (dlib's chip rectangle: edges inclusive).
    let left: Double, top: Double, right: Double, bottom: Double
    /// Radians by which the chip is turned in the photo.
    let angle: Double

    /// The chip for a face's 5 landmarks (in ``LandmarkPredictor``'s order).
    public init(landmarks: [ImagePoint]) {
        let size = Double(Self.size)
        let from = Self.template.map {
            (
                x: (Self.padding + $0.x) / (1 + 2 * Self.padding) * size,
                y: (Self.padding + $0.y) / (1 + 2 * Self.padding) * size
            )
        }
        let fit = SimilarityTransform.fitting(from, to: landmarks.prefix(5).map { (x: Double($0.x), y: Double($0.y)) })
        angle = atan2(fit.b, fit.a)
        let scale = (fit.a * fit.a + fit.b * fit.b).squareRoot(), half = (size * scale - 1) / 2
        let center = fit.apply((size / 2, size / 2))
        (left, top, right, bottom) = (center.x - half, center.y - half, center.x + half, center.y + half)
    }

    /// The recipe of this chip (uint8, 3 channels) from `photo`, a uint8 RGB image of `width` × `height`.
    public func recipe(from photo: Image, width: Int, height: Int) -> Image {
        // dlib goes down its pyramid while a level's rectangle is still larger than the chip.
        var depth = 0, grow = 2.0
        var rect = Self.down((left, top, right, bottom))
        while Self.area(rect) > Double(Self.size * Self.size) {
            rect = Self.down(rect)
            depth += 1
            grow = grow * 2 + 2
        }
        guard depth > 0 else { return warp(photo, rect: (left, top, right, bottom)) }
        // The pyramid is built over the rotated chip's bounding box, grown by a margin and cut to the photo.
        let rotated = corners((left, top, right, bottom)), xs = rotated.map(\.x), ys = rotated.map(\.y)
        let box = (
            left: Self.roundedAway(max(xs.reduce(.infinity, min) - grow, 0)),
            top: Self.roundedAway(max(ys.reduce(.infinity, min) - grow, 0)),
            right: Self.roundedAway(min(xs.reduce(-.infinity, max) + grow, Double(width - 1))),
            bottom: Self.roundedAway(min(ys.reduce(-.infinity, max) + grow, Double(height - 1)))
        )
        var level = photo.cropped(
            to: PixelRect(x: box.left, y: box.top, width: box.right - box.left + 1, height: box.bottom - box.top + 1))
        var levelRect = (
            left - Double(box.left), top - Double(box.top), right - Double(box.left), bottom - Double(box.top)
        )
        for _ in 0..<depth {
            level = level.pyramidDown()
            levelRect = Self.down(levelRect)
        }
        return warp(level, rect: levelRect)
    }

    /// The chip sampled from `source`, where the chip's square is `rect`.
    private func warp(_ source: Image, rect: (Double, Double, Double, Double)) -> Image {
        let c = corners(rect)  // top-left, top-right, bottom-left, bottom-right
        let last = Double(Self.size - 1)
        let chipToSource = AffineMatrix(
            a: Float((c[1].x - c[0].x) / last), b: Float((c[2].x - c[0].x) / last), c: Float(c[0].x),
            d: Float((c[1].y - c[0].y) / last), e: Float((c[2].y - c[0].y) / last), f: Float(c[0].y))
        return source.transformed(
            by: chipToSource.inverted ?? .identity, width: Self.size, height: Self.size, border: .blank, rounding: .down
        )
    }

    /// The corners of `rect` turned by ``angle`` about its centre: top-left, top-right, bottom-left, bottom-right.
    private func corners(_ rect: (l: Double, t: Double, r: Double, b: Double)) -> [(x: Double, y: Double)] {
        let cx = (rect.l + rect.r) / 2, cy = (rect.t + rect.b) / 2, cosine = cos(angle), sine = sin(angle)
        return [(rect.l, rect.t), (rect.r, rect.t), (rect.l, rect.b), (rect.r, rect.b)].map { x, y in
            (cosine * (x - cx) - sine * (y - cy) + cx, sine * (x - cx) + cosine * (y - cy) + cy)
        }
    }

    /// dlib's `pyramid_down<2>::rect_down`.
    private static func down(_ rect: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        (rect.0 / 2 - 1.25, rect.1 / 2 - 0.75, rect.2 / 2 - 1.25, rect.3 / 2 - 0.75)
    }

    /// A dlib drectangle's area: edges inclusive.
    private static func area(_ rect: (Double, Double, Double, Double)) -> Double {
        (rect.2 - rect.0 + 1) * (rect.3 - rect.1 + 1)
    }

    /// `std::lround`: to nearest, halves away from zero.
    private static func roundedAway(_ value: Double) -> Int {
        Int(value.rounded(.toNearestOrAwayFromZero))
    }
}
