import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import PhotoSimilarity

/// A group among the indexed photos: one photo, the copy to keep, and the copies of it (or, for shots, the
/// other shots of its object or scene), each with its print's distance to the kept one, and the bytes the
/// others take.
public struct DuplicateGroup: Sendable, Codable, Equatable {
    public struct Member: Sendable, Codable, Equatable {
        /// The image's id in the catalog.
        public let image: Int64
        public let path: String
        /// The cosine distance of its print to the kept copy's (0 for byte-identical files).
        public let distance: Float
    }

    public let best: String
    /// The kept copy first, then the others by distance.
    public let photos: [Member]
    /// What deleting the other copies would free.
    public let bytes: Int
}

/// What photos a group joins.
public enum DuplicateKind: Sendable, Equatable, Hashable {
    /// Copies of one photo: pixels that agree (`DuplicateGroups.copies(prints:hashes:identical:context:plane:)`).
    case copies
    /// Other shots of one object or scene: prints within the cosine distance, taken close in time where the
    /// photos say when (`DuplicateGroups.shots(prints:count:threshold:context:time:)`).
    case shots(threshold: Float)

    /// Who joins a group: copies, any copy of its centre (the copies of one photo need not be copies of one
    /// another: a crop and a half-size copy); shots, only photos alike with every shot already in, since at a
    /// loose distance a centre's neighbours can be far apart (a portrait of one man beside two of another).
    public var rule: DuplicateGroups.Rule {
        switch self {
        case .copies: DuplicateGroups.copiesJoin
        case .shots: DuplicateGroups.shotsJoin
        }
    }
}

extension Catalog {
    /// A tag that changes whenever a photo's print is added, replaced or removed (by any process): what a
    /// cache of similar photos or duplicate groups is kept by.
    public nonisolated func printsTag() throws(CatalogError) -> Data {
        try readingStatement { connection in try TableTags.tag(of: PhotoStore.table, connection) }
    }

    /// The groups of `kind` among the indexed photos (`DuplicateGroups`: each a photo and the photos linked
    /// to it, never grown through a member's own links), the images `excluded` left out
    /// (``staleDuplicateCandidates()``: files no longer what was indexed, which no group may advise on). Copies are
    /// compared by their files' pixels, read as they were indexed. Groups come largest saving first.
    public nonisolated func duplicateGroups(
        _ kind: DuplicateKind, context: RenderContext, excluding excluded: Set<Int64> = []
    ) throws(CatalogError) -> [DuplicateGroup] {
        let photos = try reading { connection in try PhotoStore().printedPhotos(connection, localPath: localPath) }
            .filter {
                !excluded.contains($0.entry.image)
            }
        let prints = photos.flatMap(\.entry.print)
        let copies = photos.map {
            DuplicateGroups.Copy(pixels: $0.pixels, sharpness: $0.entry.sharpness, bytes: $0.size)
        }
        let records = try records(of: photos.map(\.entry.image))
        let files = photos.map { records[$0.entry.image] }
        var links: [(Int, Int)] = []
        do {
            switch kind {
            case _ where photos.isEmpty: break  // only unprinted copies, if any
            case .copies:
                let identical = Dictionary(grouping: photos.indices) { photos[$0].contents }
                    .values.flatMap { same in same.dropFirst().map { (same[0], $0) } }
                links = try DuplicateGroups.copies(
                    prints: prints, hashes: photos.map(\.entry.hash), identical: identical, context: context
                ) { index in files[index].flatMap { Self.plane(of: $0, context: context) } }
            case .shots(let threshold):
                links = try DuplicateGroups.shots(
                    prints: prints, count: photos.count, threshold: threshold, context: context
                ) { index in files[index].flatMap(Self.dateTaken) }
            }
        } catch .invalidInput(let reason) {
            throw .invalidQuery(reason)
        } catch {
            throw .processing("cannot search the prints: \(error)")
        }
        func member(_ index: Int, distance: Float) -> DuplicateGroup.Member {
            DuplicateGroup.Member(image: photos[index].entry.image, path: photos[index].path, distance: distance)
        }
        let groups = DuplicateGroups.groups(links: links, copies: copies, rule: kind.rule).map { group in
            let best = group[0]
            // Byte-identical files lie 0 apart, whatever precision the store keeps prints in.
            func distance(_ index: Int) -> Float {
                photos[index].contents == photos[best].contents
                    ? 0 : ClosePrints.distance(between: best, and: index, in: prints)
            }
            let others = group.dropFirst().map { (index: $0, distance: distance($0)) }
                .sorted { ($0.distance, photos[$0.index].path) < ($1.distance, photos[$1.index].path) }
            return DuplicateGroup(
                best: photos[best].path,
                photos: [member(best, distance: 0)] + others.map { member($0.index, distance: $0.distance) },
                bytes: others.reduce(0) { $0 + photos[$1.index].size })
        }
        let all = kind == .copies ? try joiningUnprintedCopies(groups, printed: photos, excluding: excluded) : groups
        return all.sorted { ($0.bytes, $1.best) > ($1.bytes, $0.best) }
    }

    /// `groups` with the byte-identical copies that have no print (indexed with `--no-photos`, or before prints
    /// were made), except `excluded`: each joins the group of a printed photo with its bytes, or a group with
    /// such a photo in no group yet, else its copies make a group of their own, the first by path kept.
    private nonisolated func joiningUnprintedCopies(
        _ groups: [DuplicateGroup], printed: [PhotoStore.PrintedPhoto], excluding excluded: Set<Int64>
    ) throws(CatalogError) -> [DuplicateGroup] {
        let unprinted = Dictionary(
            grouping: try unprintedCopies().filter { !excluded.contains($0.image) }, by: \.contents)
        guard !unprinted.isEmpty else { return groups }
        let contents = Dictionary(printed.map { ($0.entry.image, $0.contents) }) { first, _ in first }
        var joined: Set<String> = []
        func joining(_ group: DuplicateGroup) -> DuplicateGroup {
            let extra = group.photos.compactMap { contents[$0.image] }.filter { joined.insert($0).inserted }
                .flatMap { unprinted[$0] ?? [] }
            return DuplicateGroup(
                best: group.best,
                photos: group.photos + extra.map { DuplicateGroup.Member(image: $0.image, path: $0.path, distance: 0) },
                bytes: group.bytes + extra.reduce(0) { $0 + $1.size })
        }
        var all = groups.map(joining)
        let grouped = Set(groups.flatMap { $0.photos.map(\.image) })
        for photo in printed where !grouped.contains(photo.entry.image) && unprinted[photo.contents] != nil {
            let alone = DuplicateGroup(
                best: photo.path, photos: [.init(image: photo.entry.image, path: photo.path, distance: 0)], bytes: 0)
            all.append(joining(alone))
        }
        for (key, copies) in unprinted where !joined.contains(key) && copies.count > 1 {
            all.append(
                DuplicateGroup(
                    best: copies[0].path,
                    photos: copies.map { DuplicateGroup.Member(image: $0.image, path: $0.path, distance: 0) },
                    bytes: copies.dropFirst().reduce(0) { $0 + $1.size }))
        }
        return all
    }

    /// An indexed photo without a print whose bytes another indexed photo shares, by path.
    struct UnprintedCopy {
        let image: Int64
        let path: String
        let size: Int
        let contents: String
    }

    /// The indexed photos without a print whose bytes (content hash and size) another indexed photo shares.
    nonisolated func unprintedCopies() throws(CatalogError) -> [UnprintedCopy] {
        try reading { connection in
            try connection.rows(
                """
                SELECT id, path, size, hash FROM images WHERE status = 'indexed' AND hash != '' \
                AND id NOT IN (SELECT image_id FROM \(PhotoStore.table)) AND (hash, size) IN \
                (SELECT hash, size FROM images WHERE status = 'indexed' AND hash != '' GROUP BY hash, size \
                HAVING COUNT(*) > 1) ORDER BY path
                """, []
            ).map { row throws(CatalogError) in
                let size: Int = try row.get(2)
                return UnprintedCopy(
                    image: try row.get(0), path: localPath(try row.get(1)), size: size,
                    contents: PhotoStore.contents(hash: try row.get(3), size: size))
            }
        }
    }

    /// Those of `similar` (photos found like the image `id`, with their print distances) that are copies of it
    /// by the rule groups use: byte-identical files (both still as indexed), and by
    /// `DuplicateGroups.CopyRule.isCopy(_:)` those whose pixels agree, compared where their
    /// prints lie within `DuplicateGroups.printThreshold`.
    public nonisolated func copies(of id: Int64, among similar: [SimilarPhoto], context: RenderContext)
        throws(CatalogError) -> [SimilarPhoto]
    {
        let near = similar.filter { $0.distance <= DuplicateGroups.printThreshold }
        guard !near.isEmpty else { return [] }
        let records = try records(of: near.map(\.image) + [id])
        guard let own = records[id] else { return [] }
        let ownUnchanged = IndexedFile.staleness(of: own) == nil
        lazy var ownPlane = Self.plane(of: own, context: context)
        return near.filter { photo in
            guard let record = records[photo.image] else { return false }
            if ownUnchanged, !own.hash.isEmpty, record.hash == own.hash, record.size == own.size {
                return IndexedFile.staleness(of: record) == nil
            }
            return DuplicateGroups.rule.isCopy(
                ownPlane.flatMap { own in
                    Self.plane(of: record, context: context).map {
                        DuplicateGroups.rule.agreement(of: own, $0, distance: photo.distance)
                    }
                })
        }
    }

    /// The planes pixels are compared on (``PixelAgreement``), from the file as it was indexed, decoded small;
    /// nil where the file is no longer that photo or cannot be decoded.
    static func plane(of record: ImageRecord, context: RenderContext) -> PixelAgreement.Plane? {
        var options = Photo.decoding
        options.minimumLongSide = PixelAgreement.side
        guard let bytes = try? IndexedFile(record).contents(),
            let photo = try? ImageDecoder.decode(bytes, path: record.path, options: options)
        else { return nil }
        return try? PixelAgreement.plane(of: photo, pixels: record.width * record.height, context: context)
    }

    /// When the photo was taken, by its Exif block; nil where the file does not say or is no longer the photo.
    static func dateTaken(of record: ImageRecord) -> Date? {
        guard let head = try? IndexedFile(record).read(from: 0, count: 1 << 17) else { return nil }
        return ExifTags(jpeg: head)?.dateTaken
    }
}
