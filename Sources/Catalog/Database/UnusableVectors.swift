import Foundation
import GRDB
import PhotoSimilarity

/// Stored prints and embeddings that hold values that are not numbers (NaN, ±∞), as a model that was no
/// use made them before such models were refused: they rank and group nothing. `check` lists them and
/// `check --repair` drops them, which leaves their photos incomplete, so that the next `cbir index` of their
/// folders makes them anew (``PhotoAnalysis/isIncomplete(image:_:)``).
struct UnusableVectors {
    /// The images whose print is unusable (or of the wrong length), and the faces whose embedding is.
    var prints: [Int64] = []
    var embeddings: [Int64] = []

    var isEmpty: Bool { prints.isEmpty && embeddings.isEmpty }

    /// What is unusable in the database, read in one sweep of each table.
    init(_ db: Database) throws {
        if try db.tableExists(PhotoStore.table) {
            let rows = try Row.fetchCursor(db, sql: "SELECT image_id, print FROM \(PhotoStore.table)")
            while let row = try rows.next() {
                let print: Data = row[1]
                if print.count != PhotoPrinter.length * MemoryLayout<Float>.size || !Self.isFinite(print) {
                    prints.append(row[0])
                }
            }
        }
        if try db.tableExists(FaceStore.embeddingsTable) {
            let rows = try Row.fetchCursor(db, sql: "SELECT face_id, embedding FROM \(FaceStore.embeddingsTable)")
            while let row = try rows.next() {
                if !Self.isFinite(row[1]) { embeddings.append(row[0]) }
            }
        }
    }

    /// A line for each, as `check` lists problems.
    var problems: [String] {
        prints.map { "photo \($0): its print holds values that are not numbers; `cbir check --repair` drops it" }
            + embeddings.map {
                "face \($0): its embedding holds values that are not numbers; `cbir check --repair` drops it"
            }
    }

    /// Deletes them: their photos are printed, their faces embedded, by the next `cbir index`.
    func drop(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(PhotoStore.table) WHERE image_id IN (\(RowBatches.list(prints)))")
        try db.execute(
            sql: "DELETE FROM \(FaceStore.embeddingsTable) WHERE face_id IN (\(RowBatches.list(embeddings)))")
    }

    private static func isFinite(_ data: Data) -> Bool {
        [Float](littleEndianBytes: data).allSatisfy(\.isFinite)
    }
}

extension Catalog {
    /// Drops the stored prints and embeddings that hold values that are not numbers; returns the files of
    /// the photos they belonged to, which `cbir index` completes again.
    public func dropUnusableVectors() throws(CatalogError) -> [String] {
        try write { db in
            let unusable = try UnusableVectors(db)
            guard !unusable.isEmpty else { return [] }
            let images =
                unusable.prints
                + (try Int64.fetchAll(
                    db, sql: "SELECT image_id FROM faces WHERE id IN (\(RowBatches.list(unusable.embeddings)))"))
            try unusable.drop(db)
            return try String.fetchAll(
                db, sql: "SELECT path FROM images WHERE id IN (\(RowBatches.list(Set(images)))) ORDER BY path")
        }
    }
}
