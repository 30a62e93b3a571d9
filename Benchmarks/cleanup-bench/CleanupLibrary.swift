import BenchmarkSupport
import Foundation
import ImageCodecs
import ImageKernels

/// The library cleanup-bench cleans up: distinct photos, none a copy of another, and transformed copies of some of
/// them (``PhotoCopy/targeted``, in turn) in a folder of their own, as photos imported twice or saved again are.
///
/// The shared collections hold a few hundred photos, so the distinct photos are tiles of theirs: each photo cut into
/// a grid of 128 × 96 tiles, those with detail kept (a flat tile of sky or wall is a copy of every other one), each
/// enlarged five times to 640 × 480, the size of a UKBench photo, and saved as a JPEG of quality 90.
struct CleanupLibrary {
    static let tile = (width: 128, height: 96), enlargement = 5
    /// The least standard deviation of a tile's first plane for it to have detail.
    static let detail = 20.0

    /// The library's folder; the distinct photos are in `photos/`, the copies in `copies/`.
    let folder: String
    /// Each copy made and the photo it is a copy of, both paths.
    let pairs: [(copy: String, original: String)]
    /// Each pair both ways, [copy, original] and [original, copy]: a move of one kept by the other is a copy's.
    var madePairs: Set<[String]> { Set(pairs.flatMap { [[$0.copy, $0.original], [$0.original, $0.copy]] }) }
    let distinct: Int
    /// How many photos of the collections the tiles were cut from.
    let sources: Int

    /// Makes the library of `photos` photos, `copies` of them copies, in `folder` (a new one).
    static func make(
        in folder: String, photos: Int, copies: Int, from collections: [String], context: RenderContext,
        progress: (String) -> Void
    ) throws -> CleanupLibrary {
        let distinct = photos - copies
        for sub in ["photos", "copies"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        var made: [String] = [], sources = 0
        for file in try files(in: collections) where made.count < distinct {
            guard let photo = try? ImageDecoder.decode(contentsOf: file) else { continue }
            sources += 1
            for rect in PhotoTiles.withDetail(of: photo, width: tile.width, height: tile.height, deviation: detail)
            where made.count < distinct {
                let enlarged = try context.render(
                    Image(photo).cropped(to: rect)
                        .resized(
                            width: tile.width * enlargement, height: tile.height * enlargement, method: .bilinear))
                let path = String(format: "%@/photos/tile%05d.jpg", folder, made.count)
                try ImageEncoder.write(colour(enlarged), to: path, quality: 90)
                made.append(path)
                if made.count % 1000 == 0 { progress("made \(made.count) of \(distinct) distinct photos") }
            }
        }
        guard made.count == distinct else {
            throw ValidationFailure(
                "the collections give \(made.count) tiles with detail, not \(distinct): name more with --collections")
        }
        var pairs: [(copy: String, original: String)] = []
        for index in 0..<copies {
            let original = made[index * distinct / copies]
            let kind = PhotoCopy.targeted[index % PhotoCopy.targeted.count]
            let copy = try kind.make(of: try ImageDecoder.decode(contentsOf: original), context: context)
            let path = String(format: "%@/copies/copy%05d-%@.jpg", folder, index, kind.rawValue)
            try ImageEncoder.write(copy, to: path, quality: 90)
            pairs.append((path, original))
        }
        return CleanupLibrary(folder: folder, pairs: pairs, distinct: distinct, sources: sources)
    }

    /// The image files under the folders, in order.
    private static func files(in folders: [String]) throws -> [String] {
        try folders.flatMap { folder in
            guard let names = FileManager.default.enumerator(atPath: folder)?.compactMap({ $0 as? String }) else {
                throw ValidationFailure("\(folder) cannot be read")
            }
            return names.filter { [".jpg", ".jpeg", ".png"].contains(where: $0.lowercased().hasSuffix) }.sorted()
                .map { folder + "/" + $0 }
        }
    }

    /// The photo's colour planes (JPEG has no alpha).
    private static func colour(_ photo: PixelBuffer) throws -> PixelBuffer {
        let d = photo.descriptor
        guard d.channels == 4 else { return photo }
        return try PixelBuffer(
            width: d.width, height: d.height, channels: 3, values: Array(photo.bytes.prefix(3 * d.planePixelCount)))
    }
}
