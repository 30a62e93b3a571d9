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
