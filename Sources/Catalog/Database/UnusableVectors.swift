import Foundation
import PhotoSimilarity

/// Stored prints and embeddings that hold values that are not numbers (NaN, ±∞), as a model that was no
/// use made them before such models were refused: they rank and group nothing. `check` lists them and
/// `check --repair` drops them, which leaves their photos incomplete, so that the next `cbir index` of their
/// folders makes them anew (``PhotoAnalysis/isIncomplete(image:_:)``). Stored classes that cannot be read are
/// listed too: searches by word pass them over, and the next `cbir index` makes them again as it is.
struct UnusableVectors {
    /// The images whose print is unusable (or of the wrong length), and the faces whose embedding is.
    var prints: [Int64] = []
    var embeddings: [Int64] = []
    /// The images whose classes cannot be read.
    var classes: [Int64] = []

    var isEmpty: Bool { prints.isEmpty && embeddings.isEmpty && classes.isEmpty }

    /// What is unusable in the catalog, read in one sweep of each table.
    init(_ connection: any StoreConnection) throws {
        if try connection.tableExists(PhotoStore.table) {
            try connection.forEachRow("SELECT image_id, print FROM \(PhotoStore.table)", []) { row in
                let print = try? row.get(1) as [Float]
                if print?.count != PhotoPrinter.length || print?.allSatisfy(\.isFinite) != true {
                    prints.append(try row.get(0))
                }
            }
            classes = try PhotoStore().damagedClasses(connection)
        }
        if try connection.tableExists(FaceStore.embeddingsTable) {
            try connection.forEachRow("SELECT face_id, embedding FROM \(FaceStore.embeddingsTable)", []) { row in
                if (try? row.get(1) as [Float])?.allSatisfy(\.isFinite) != true { embeddings.append(try row.get(0)) }
            }
        }
    }

    /// A line for each, as `check` lists problems.
    var problems: [String] {
        prints.map { "photo \($0): its print holds values that are not numbers; `cbir check --repair` drops it" }
            + embeddings.map {
                "face \($0): its embedding holds values that are not numbers; `cbir check --repair` drops it"
            }
            + classes.map {
                "photo \($0): its classes (to find it by words) are damaged; the next `cbir index` of its folder makes "
                    + "them again"
            }
    }

    /// Deletes them: their photos are printed (and classified), their faces embedded, by the next `cbir index`.
    func drop(_ connection: any StoreConnection) throws {
        try connection.execute(
            "UPDATE \(PhotoStore.table) SET classes = NULL WHERE image_id IN (\(RowBatches.list(classes)))", [])
        try connection.execute("DELETE FROM \(PhotoStore.table) WHERE image_id IN (\(RowBatches.list(prints)))", [])
        try connection.execute(
            "DELETE FROM \(FaceStore.embeddingsTable) WHERE face_id IN (\(RowBatches.list(embeddings)))", [])
    }
}

extension Catalog {
    /// Drops the stored prints and embeddings that hold values that are not numbers, and classes that cannot
    /// be read; returns the files of the photos they belonged to, which `cbir index` completes again.
    public func dropUnusableVectors() throws(CatalogError) -> [String] {
        try writing { connection in
            let unusable = try UnusableVectors(connection)
            guard !unusable.isEmpty else { return [] }
            let faces = RowBatches.list(unusable.embeddings)
            let images =
                try unusable.prints + unusable.classes
                + connection.rows("SELECT image_id FROM faces WHERE id IN (\(faces))", []).map {
                    row throws(CatalogError) in try row.get(0) as Int64
                }
            try unusable.drop(connection)
            return try connection.rows(
                "SELECT path FROM images WHERE id IN (\(RowBatches.list(Set(images)))) ORDER BY path", []
            ).map { row throws(CatalogError) in localPath(try row.get(0)) }
        }
    }
}
