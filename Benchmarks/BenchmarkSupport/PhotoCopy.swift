import Foundation
import ImageCodecs
import ImageKernels

/// The transformed copies the benchmarks make of a photo to measure near-duplicate grouping and cleanup: what a
/// photo becomes when it is shared, edited or saved again.
public enum PhotoCopy: String, CaseIterable, Encodable, Sendable {
    /// Resized to half its width and height (area averaging).
    case half
    /// Re-encoded as a JPEG of quality 30.
    case jpeg30
    /// The central 90 % of its width and height.
    case crop10
    /// Every value 25 % brighter (clipped at 255).
    case brighter25
    /// Rotated by 5 degrees about its centre, same size, borders replicated.
    case rotated5
    /// Mirrored left to right (reported apart: a print is not meant to be mirror-blind).
    case flipped
    /// The central part of half its area (71 % of each side).
    case halfFrame
    /// Its left half.
    case halfSide

    /// The copies the near-duplicate target is measured over.
    public static let targeted: [PhotoCopy] = [.half, .jpeg30, .crop10, .brighter25]

    /// This copy of a uint8 planar photo.
    public func make(of photo: PixelBuffer, context: RenderContext) throws -> PixelBuffer {
        let width = photo.descriptor.width, height = photo.descriptor.height
        switch self {
        case .half:
            return try context.render(Image(photo).resized(width: width / 2, height: height / 2, method: .area))
        case .jpeg30:
            return try ImageDecoder.decode(ImageEncoder.jpeg(photo, quality: 30), path: "<quality 30 copy>")
        case .crop10: return try centre(of: photo, share: 0.9, context: context)
        case .halfFrame: return try centre(of: photo, share: 0.71, context: context)
        case .halfSide:
            return try context.render(Image(photo).cropped(to: PixelRect(x: 0, y: 0, width: width / 2, height: height)))
        case .brighter25:
            return PixelBuffer(descriptor: photo.descriptor) { out in
                for (i, value) in photo.bytes.enumerated() { out[i] = UInt8(min(255, (Float(value) * 1.25).rounded())) }
            }
        case .rotated5:
            let centre = (x: Float(width - 1) / 2, y: Float(height - 1) / 2)
            return try context.render(Image(photo).rotated(by: 5 * .pi / 180, about: centre))
        case .flipped:
            return PixelBuffer(descriptor: photo.descriptor) { out in
                for row in 0..<photo.bytes.count / width {
                    for x in 0..<width { out[row * width + x] = photo.bytes[row * width + width - 1 - x] }
                }
            }
        }
    }

    /// The central `share` of the photo's width and height.
    private func centre(of photo: PixelBuffer, share: Double, context: RenderContext) throws -> PixelBuffer {
        let width = photo.descriptor.width, height = photo.descriptor.height
        let (cropWidth, cropHeight) = (Int(Double(width) * share), Int(Double(height) * share))
        return try context.render(
            Image(photo).cropped(
                to: PixelRect(
                    x: (width - cropWidth) / 2, y: (height - cropHeight) / 2, width: cropWidth, height: cropHeight)))
    }
}
