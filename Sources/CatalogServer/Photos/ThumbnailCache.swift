import Catalog
import Foundation
import ImageCodecs
import ImageKernels

/// Thumbnails of photos and faces, made from files checked to be the photos that were indexed
/// (``IndexedFile``): decoded no larger than they need (DCT-scaled JPEGs), cropped and resized on the
/// kernels, JPEG-encoded and kept as files in a folder beside the database, named after the photo's content
/// so that a changed file gets new ones. Where the folder cannot be written (a read-only database) they are
/// made for each request instead.
struct ThumbnailCache: Sendable {
    /// A thumbnail's JPEG bytes and the tag that names this version of it (an HTTP entity tag).
    struct Thumbnail: Sendable {
        let bytes: [UInt8]
        let tag: String
    }

    let folder: String
    let context: RenderContext
    /// Long side of a photo's thumbnail, side of a face's (square), in pixels.
    static let photoSide = 360, faceSide = 160

    /// The photo's thumbnail: the whole photo, its long side `photoSide`.
    func photo(_ file: IndexedFile) throws -> Thumbnail {
        try cached(name: "photo-\(file.record.id ?? 0)", image: file.record) {
            try fitted(try decode(file, longSide: Self.photoSide))
        }
    }

    /// The face's thumbnail: a square around its box, half as wide again, `faceSide` across.
    func face(_ face: PhotoFace, in file: IndexedFile) throws -> Thumbnail {
        let image = file.record
        return try cached(name: "face-\(face.id)-\(face.x)-\(face.y)-\(face.width)", image: image) {
            let side = 1.5 * Double(max(face.width, face.height, 1))
            let longSide = max(image.width, image.height, 1)
            let pixels = try decode(file, longSide: Int((Double(longSide * Self.faceSide) / side).rounded(.up)))
            let scale = Double(pixels.descriptor.width) / Double(max(image.width, 1))
            let width = pixels.descriptor.width, height = pixels.descriptor.height
            let square = min(Int((side * scale).rounded()), width, height)
            let centre = (
                x: (Double(face.x) + Double(face.width) / 2) * scale,
                y: (Double(face.y) + Double(face.height) / 2) * scale
            )
            let x = min(max(0, Int(centre.x) - square / 2), width - square)
            let y = min(max(0, Int(centre.y) - square / 2), height - square)
            let crop = Image(pixels).cropped(to: PixelRect(x: x, y: y, width: square, height: square))
            return try context.render(
                square > Self.faceSide
                    ? crop.resized(width: Self.faceSide, height: Self.faceSide, method: .area) : crop)
        }
    }

    /// A photo's pixels as a JPEG of the photos' thumbnail size, kept nowhere (an upload's, say).
    func preview(of pixels: PixelBuffer) throws -> [UInt8] {
        try ImageEncoder.jpeg(try fitted(pixels.descriptor.channels == 1 ? pixels : pixels.rgb()), quality: 82)
    }

    /// Pixels resized on the kernels to a long side of at most `photoSide`.
    private func fitted(_ pixels: PixelBuffer) throws -> PixelBuffer {
        let scale = min(1, Double(Self.photoSide) / Double(max(pixels.descriptor.width, pixels.descriptor.height)))
        return try context.render(
            Image(pixels).resized(
                width: max(1, Int((Double(pixels.descriptor.width) * scale).rounded())),
                height: max(1, Int((Double(pixels.descriptor.height) * scale).rounded())), method: .area))
    }

    /// The file's pixels, decoded at the smallest scale still `longSide` long, gray or colour without alpha.
    private func decode(_ file: IndexedFile, longSide: Int) throws -> PixelBuffer {
        var options = Photo.decoding
        options.minimumLongSide = longSide
        let pixels = try ImageDecoder.decode(try file.contents(), path: file.record.path, options: options)
        return pixels.descriptor.channels == 1 ? pixels : pixels.rgb()
    }

    /// The thumbnail kept under `name` for this version of `image`, made by `make` when it is not kept yet.
    private func cached(name: String, image: ImageRecord, make: () throws -> PixelBuffer) throws -> Thumbnail {
        let version = "\(name)-\(image.hash.prefix(16))"
        let tag = "\"\(version)\""
        let file = folder + "/" + version + ".jpg"
        if let kept = FileManager.default.contents(atPath: file), !kept.isEmpty {
            return Thumbnail(bytes: [UInt8](kept), tag: tag)
        }
        let bytes = try ImageEncoder.jpeg(try make(), quality: 82)
        store(bytes, as: file)
        return Thumbnail(bytes: bytes, tag: tag)
    }

    /// Writes a thumbnail whole (a file beside it, then renamed), or not at all where the folder cannot be written.
    private func store(_ bytes: [UInt8], as file: String) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let partial = file + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
        guard FileManager.default.createFile(atPath: partial, contents: Data(bytes)) else { return }
        if rename(partial, file) != 0 { unlink(partial) }
    }
}
