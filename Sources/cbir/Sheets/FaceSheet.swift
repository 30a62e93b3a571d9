import FaceDetection
import ImageKernels

/// Marks found faces on a photo for a person to look at.
enum FaceSheet {
    /// The photo as RGB with a green box, 3 pixels wide or more, around each face, and a red dot on each eye.
    static func marked(_ photo: PixelBuffer, _ faces: [FaceObservation]) -> PixelBuffer {
        let d = photo.descriptor, pixels = d.planePixelCount
        let rgb = ImageDescriptor(width: d.width, height: d.height, channels: 3, elementType: .uint8)
        return PixelBuffer(descriptor: rgb) { out in
            for c in 0..<3 {
                let source = min(c, d.channels - 1) * pixels
                for i in 0..<pixels { out[c * pixels + i] = photo.bytes[source + i] }
            }
            func paint(_ x: Int, _ y: Int, _ colour: [UInt8]) {
                guard x >= 0, y >= 0, x < d.width, y < d.height else { return }
                for (c, value) in colour.enumerated() { out[c * pixels + y * d.width + x] = value }
            }
            let thickness = max(3, d.width / 400)
            for face in faces {
                let box = face.rect
                for y in box.y..<box.y + box.height {
                    for x in box.x..<box.x + box.width {
                        let onEdge =
                            x - box.x < thickness || box.x + box.width - 1 - x < thickness
                            || y - box.y < thickness || box.y + box.height - 1 - y < thickness
                        if onEdge { paint(x, y, [40, 230, 60]) }
                    }
                }
                let radius = max(thickness, box.width / 40)
                for eye in [face.eyes?.left, face.eyes?.right].compactMap({ $0 }) {
                    let (cx, cy) = (Int(eye.x.rounded()), Int(eye.y.rounded()))
                    for y in cy - radius...cy + radius {
                        for x in cx - radius...cx + radius
                        where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius {
                            paint(x, y, [240, 40, 40])
                        }
                    }
                }
            }
        }
    }
}
