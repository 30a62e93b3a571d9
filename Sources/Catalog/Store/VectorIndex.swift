import FaceRecognition
import PhotoSimilarity

/// A column of vectors that a store may index for nearest-neighbour search: the faces' embeddings (L2) and the
/// photos' prints (cosine).
struct VectorColumn: Sendable {
    /// The table, its key (the row's id in searches) and the column of vectors.
    let table: String
    let key: String
    let column: String
    /// How many values a vector has.
    let length: Int
    /// Whether the column's index ranks by cosine distance (else by Euclidean distance).
    let cosine: Bool
    /// Reads the vectors of some keys (nil: every one) in batches, in the form galleries take.
    let read: @Sendable ([Int64]?, any StoreConnection, GalleryRows) throws -> Void

    /// A batch of vectors with the face and image each is searched as.
    typealias GalleryRows = ([(embedding: [Float], face: FaceID, image: ImageID)]) throws -> Void

    static let faceEmbeddings = VectorColumn(
        table: FaceStore.embeddingsTable, key: "face_id", column: "embedding", length: FaceEmbedder.length,
        cosine: false, read: { ids, connection, body in try FaceStore().embeddings(ids, connection, body) })
    static let photoPrints = VectorColumn(
        table: PhotoStore.table, key: "image_id", column: "print", length: PhotoPrinter.length, cosine: true,
        read: { ids, connection, body in try PhotoStore().prints(ids, connection, body) })
}

/// A store's own index of its vectors (pgvector's HNSW on PostgreSQL), which finds candidates near a probe
/// without reading every row: the catalog re-ranks them exactly on its own kernels. A store without one (SQLite)
/// is searched exactly, every vector on the device.
protocol VectorIndex: Sendable {
    /// About how many rows `column`'s table holds (the server's estimate where it keeps one).
    func approximateCount(of column: VectorColumn, _ connection: any StoreConnection) throws -> Int

    /// For each probe, the keys of up to `count` rows of `column` near it, by the column's metric, among the keys
    /// that `filter` (a query of keys written by the catalog, never from input) returns where it is given.
    func candidates(
        in column: VectorColumn, near probes: [[Float]], count: Int, among filter: String?,
        _ connection: any StoreConnection
    ) throws -> [[Int64]]
}
