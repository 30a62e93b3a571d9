import Foundation

/// An indexed photo whose file is no longer the photo that was indexed, and why: what `duplicates` leaves out
/// of its groups and `similar` out of its answers, rather than advise on a file that is gone or holds another.
public struct StalePhoto: Sendable, Codable, Equatable {
    public let image: Int64
    public let path: String
    public let reason: String
}

extension Catalog {
    /// The images among `ids` whose files are no longer the photos that were indexed (``IndexedFile``).
    public nonisolated func stalePhotos(among ids: some Collection<Int64>) throws(CatalogError) -> [StalePhoto] {
        try records(of: ids).values.compactMap { record in
            guard let id = record.id, let reason = IndexedFile.staleness(of: record) else { return nil }
            return StalePhoto(image: id, path: record.path, reason: reason.description)
        }.sorted { $0.path < $1.path }
    }

    /// The photos duplicate groups weigh (the printed ones, and those without a print whose bytes another photo
    /// shares) whose files are no longer the photos that were indexed.
    public nonisolated func staleDuplicateCandidates() throws(CatalogError) -> [StalePhoto] {
        try stalePhotos(
            among: try readingStatement { connection in try PhotoStore().imageIDs(connection) }
                .union(try unprintedCopies().map(\.image)))
    }

    /// The photos of rankings whose files are still the photos that were indexed (``IndexedFile/staleness(of:)``),
    /// with their paths: `rank(count)` ranks the best `count` of each (every photo when nil); where files gone
    /// leave a ranking fewer than `top`, though it had more, it is asked for twice as many, so that a library with
    /// many files gone (a share not mounted) takes a few rounds, not one a photo.
    nonisolated func currentPhotos<Match>(
        top: Int?, _ rank: (Int?) throws(CatalogError) -> [[(image: Int64, match: Match)]]
    ) throws(CatalogError) -> [[(image: Int64, path: String, match: Match)]] {
        var asked = top, current: [Int64: String] = [:], checked: Set<Int64> = []
        while true {
            let ranked = try rank(asked)
            let unchecked = Set(ranked.joined().map(\.image)).subtracting(checked)
            for (id, record) in try records(of: unchecked) where IndexedFile.staleness(of: record) == nil {
                current[id] = record.path
            }
            checked.formUnion(unchecked)
            let found = ranked.map { matches in
                matches.compactMap { match in current[match.image].map { (match.image, $0, match.match) } }
            }
            guard let top, let wanted = asked,
                zip(found, ranked).contains(where: { $0.count < top && $1.count == wanted })
            else { return found.map { photos in top.map { Array(photos.prefix($0)) } ?? photos } }
            asked = wanted * 2
        }
    }

    /// The stored records of images by id, read 500 to a statement.
    nonisolated func records(of ids: some Collection<Int64>) throws(CatalogError) -> [Int64: ImageRecord] {
        let ids = Array(ids)
        var records: [Int64: ImageRecord] = [:]
        for start in stride(from: 0, to: ids.count, by: 500) {
            let batch = RowBatches.list(ids[start..<min(ids.count, start + 500)])
            for record in try readingStatement({ connection in
                try connection.rows("SELECT \(ImageRecord.columns) FROM images WHERE id IN (\(batch))", []).map(
                    imageRecord)
            }) {
                if let id = record.id { records[id] = record }
            }
        }
        return records
    }
}
