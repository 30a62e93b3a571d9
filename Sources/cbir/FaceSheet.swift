import ImageKernels

/// Marks found faces on a photo for a person to look at.
enum FaceSheet {
    /// The photo as RGB with a green box, 3 pixels wide, around each rectangle.
    static func boxed(_ photo: PixelBuffer, _ boxes: [PixelRect]) -> PixelBuffer {
        let d = photo.descriptor, pixels = d.planePixelCount
        let rgb = ImageDescriptor(width: d.width, height: d.height, channels: 3, elementType: .uint8)
        return PixelBuffer(descriptor: rgb) { out in
            for c in 0..<3 {
                let source = min(c, d.channels - 1) * pixels
                for i in 0..<pixels { out[c * pixels + i] = photo.bytes[source + i] }
            }
            let thickness = max(3, d.width / 400)
            for box in boxes {
                for y in max(0, box.y)..<min(d.height, box.y + box.height) {
                    for x in max(0, box.x)..<min(d.width, box.x + box.width) {
                        let onEdge = x - box.x < thickness || box.x + box.width - 1 - x < thickness
                            || y - box.y < thickness || box.y + box.height - 1 - y < thickness
                        guard onEdge else { continue }
                        for (c, value) in [UInt8(40), 230, 60].enumerated() { out[c * pixels + y * d.width + x] = value }
                    }
                }
            }
        }
    }
}
