import BenchmarkSupport
import Catalog
import FaceRecognition
import Foundation
import ImageKernels
import Logging
import NIOCore
import PostgresNIO

// vector-bench: pgvector's HNSW indexes at the catalog's settings on synthetic vectors clustered like real ones:
// photo prints (halfvec(1280), cosine) and faces (vector(128), L2). For each: the rows' insertion, the index's
// build time and size, then per beam (hnsw.ef_search) and number of candidates the recall@10 against exact search
// after the exact re-rank (on our kernels, as the catalog does) and the latency of one search (candidates, their
// vectors, re-rank) at 1 connection, then the catalog's own settings at 16 connections. Tables are kept between
// runs (named by size and seed): a second run with other beams reuses them. Prints markdown tables.

let options = UsageOptions(
    usage: """
        vector-bench [--postgres postgres://user@host:port/database] [--prints 100000] [--faces 100000] \
        [--queries 200] [--m 16] [--ef-construction 200] [--beams 40,100,200,400] [--candidates 10,40] \
        [--beam 200]
        """)
func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
guard let url = options.value("--postgres") else {
    note(
        "vector-bench needs --postgres URL: a database with pgvector (bash scripts/postgres.sh database NAME)"
    )
    exit(2)
}
let printCount = options.value("--prints").flatMap(Int.init) ?? 100_000
let faceCount = options.value("--faces").flatMap(Int.init) ?? 100_000
let queryCount = options.value("--queries").flatMap(Int.init) ?? 200
let m = options.value("--m").flatMap(Int.init) ?? 16
let efConstruction = options.value("--ef-construction").flatMap(Int.init) ?? 200
// "--beams none" leaves out the recall table (and the exact search it needs) for the 16 connections' line alone.
let beams = (options.value("--beams") ?? "40,100,200,400").split(separator: ",").compactMap { Int($0) }
/// The beam the 16 connections search with: the catalog's (PgvectorIndex.minimumBeam).
let concurrentBeam = options.value("--beam").flatMap(Int.init) ?? 200
let candidateCounts = (options.value("--candidates") ?? "10,40").split(separator: ",").compactMap { Int($0) }
let k = 10
let location = try PostgresLocation(url)
let logger = Logger(label: "vector-bench") { _ in SwiftLogNoOpLogHandler() }
let context = RenderContext(device: .cpu)

/// A kind of vector: how it is stored, compared and drawn.
struct Kind: Sendable {
    let name: String
    let length: Int
    /// pgvector's type, operator class and distance operator.
    let type: String
    let operatorClass: String
    let distance: String
    /// Stored as halves: the exact search compares what the store gives back.
    let half: Bool
    let draw: @Sendable (Int) -> [Float]
    let query: @Sendable (Int) -> [Float]
}

/// Normal deviates from a seed (Box–Muller on SplitMix64).
@Sendable func normals(_ count: Int, seed: UInt64) -> [Float] {
    var random = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 12345)
    var values = [Float](repeating: 0, count: count)
    var index = 0
    while index < count {
        let u = max(Float.random(in: 0..<1, using: &random), .leastNormalMagnitude),
            v = Float.random(
                in: 0..<1, using: &random)
        let r = (-2 * log(u)).squareRoot()
        values[index] = r * cos(2 * .pi * v)
        if index + 1 < count { values[index + 1] = r * sin(2 * .pi * v) }
        index += 2
    }
    return values
}

@Sendable func normalised(_ values: [Float]) -> [Float] {
    let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
    return norm > 0 ? values.map { $0 / norm } : values
}

// Prints: 1,000 topics, 100 objects in each, 10 views of each object (so 1,000,000 prints in all), each view
// relu(-0.5 + 0.3 g + t + 0.8 o + s v) normalised, where g is shared by all, t the topic's, o the object's and
// v the view's normal deviates, and s the object's view spread (0.25–0.75). Calibrated on the prints of the
// shared photos (UKBench, Caltech-101, wild photos, 2,344 prints): a random pair lies 0.80 apart there (median
// cosine distance), 0.76 here; 45 % of their values are zero, 64 % here.
let printGlobal = normals(1280, seed: 1)
let printsPerObject = 10, objectsPerTopic = 100
@Sendable func printVector(object: Int, view: Int) -> [Float] {
    let topic = normals(1280, seed: 1_000_000 + UInt64(object / objectsPerTopic))
    let own = normals(1280, seed: 10_000_000 + UInt64(object))
    let spread = 0.25 + 0.5 * Float(abs(own[0]).truncatingRemainder(dividingBy: 1))
    let noise = normals(1280, seed: 100_000_000 + UInt64(object) * 1000 + UInt64(view))
    return normalised(
        (0..<1280).map { i in max(0, -0.5 + 0.3 * printGlobal[i] + topic[i] + 0.8 * own[i] + spread * noise[i]) })
}
// Faces: 50,000 people of 20 faces each, each face the person's centre plus 0.025 per value of noise, the
// centres a shared mean plus 0.056 per value: faces of one person lie about 0.4 apart (L2), of two people about
// 0.9, as dlib's embeddings do (its threshold for one person is 0.6).
let faceMean = normals(128, seed: 2).map { $0 * 0.1 }
let facesPerPerson = 20
@Sendable func faceVector(person: Int, view: Int) -> [Float] {
    let centre = normals(128, seed: 200_000_000 + UInt64(person))
    let noise = normals(128, seed: 300_000_000 + UInt64(person) * 1000 + UInt64(view))
    return (0..<128).map { i in faceMean[i] + 0.056 * centre[i] + 0.025 * noise[i] }
}

let kinds = [
    Kind(
        name: "prints", length: 1280, type: "halfvec(1280)", operatorClass: "halfvec_cosine_ops", distance: "<=>",
        half: true, draw: { printVector(object: $0 / printsPerObject, view: $0 % printsPerObject) },
        query: { printVector(object: ($0 * 7919) % max(1, printCount / printsPerObject), view: 500 + $0) }),
    Kind(
        name: "faces", length: 128, type: "vector(128)", operatorClass: "vector_l2_ops", distance: "<->",
        half: false, draw: { faceVector(person: $0 / facesPerPerson, view: $0 % facesPerPerson) },
        query: { faceVector(person: ($0 * 7919) % max(1, faceCount / facesPerPerson), view: 500 + $0) }),
]

func connect() async throws -> PostgresConnection {
    try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 1, logger: logger)
}

func integer(_ connection: PostgresConnection, _ sql: String) async throws -> Int {
    for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        .decode(Int64.self)
    {
        return Int(value)
    }
    return 0
}

func run(_ connection: PostgresConnection, _ sql: String) async throws {
    _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
}

/// Percentile of sorted values.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// The stored rows of `kind`, as the store gives them back (halves where it keeps halves), drawn in parallel.
func stored(_ kind: Kind, count: Int) -> [[Float]] {
    let rows = UnsafeMutableBufferPointer<[Float]>.allocate(capacity: count)
    rows.initialize(repeating: [])
    let chunks = ProcessInfo.processInfo.activeProcessorCount * 8
    nonisolated(unsafe) let shared = rows
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        for index in stride(from: chunk, to: count, by: chunks) {
            let row = kind.draw(index)
            shared[index] = kind.half ? row.map { Float(Float16($0)) } : row
        }
    }
    defer { rows.deallocate() }
    return Array(rows)
}

/// The exact `k` nearest rows of each query, by the catalog's exact search (a gallery of every row on the CPU
/// device; Euclidean, which ranks unit vectors as cosine does).
func exactNearest(_ rows: [[Float]], _ queries: [[Float]], length: Int) throws -> [[Int64]] {
    let gallery = EmbeddingGallery(length: length, context: context)
    gallery.reserveCapacity(rows.count)
    for first in stride(from: 0, to: rows.count, by: 10_000) {
        try gallery.append(
            (first..<min(first + 10_000, rows.count)).map { (rows[$0], FaceID(Int64($0)), ImageID(Int64($0))) })
    }
    var nearest = queries.map { _ in TopFaces(k) }
    try gallery.search(queries, into: &nearest)
    return nearest.map { $0.matches.map(\.face.rawValue) }
}

/// Inserts `rows` into a new table, 100 rows a statement over two connections; returns seconds taken.
func insert(_ rows: [[Float]], kind: Kind, table: String) async throws -> Double {
    let start = Date()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for part in 0..<2 {
            group.addTask {
                let connection = try await connect()
                for first in stride(from: part * 100, to: rows.count, by: 200) {
                    var bindings = PostgresBindings()
                    var values: [String] = []
                    for index in first..<min(first + 100, rows.count) {
                        bindings.append(Int64(index))
                        bindings.append(rows[index])
                        values.append("($\(bindings.count - 1), $\(bindings.count)::real[]::\(kind.type))")
                    }
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL: "INSERT INTO \(table) (id, v) VALUES " + values.joined(separator: ","),
                            binds: bindings), logger: logger)
                }
                try await connection.close()
            }
        }
        try await group.waitForAll()
    }
    return Date().timeIntervalSince(start)
}

/// One search as the catalog runs it: in a read-only transaction, the beam set, the candidates asked of the index,
/// their vectors read, and those re-ranked exactly on our kernels. Returns the `k` nearest ids.
func search(
    _ query: [Float], kind: Kind, table: String, beam: Int, candidates: Int, on connection: PostgresConnection
) async throws -> [Int64] {
    try await run(connection, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    try await run(connection, "SET LOCAL hnsw.ef_search = \(beam)")
    try await run(connection, "SET LOCAL hnsw.iterative_scan = relaxed_order")
    var ids: [Int64] = []
    for try await id in try await connection.query(
        """
        SELECT id FROM \(unescaped: table) \
        ORDER BY v \(unescaped: kind.distance) \(query)::real[]::\(unescaped: kind.type) LIMIT \(candidates)
        """,
        logger: logger
    ).decode(Int64.self) {
        ids.append(id)
    }
    let gallery = EmbeddingGallery(length: kind.length, context: context)
    var batch: [(embedding: [Float], face: FaceID, image: ImageID)] = []
    for try await (id, vector) in try await connection.query(
        "SELECT id, v::real[] FROM \(unescaped: table) WHERE id = ANY(\(ids))", logger: logger
    ).decode((Int64, [Float]).self) {
        batch.append((vector, FaceID(id), ImageID(id)))
    }
    try await run(connection, "COMMIT")
    try gallery.append(batch)
    var top = TopFaces(k)
    try gallery.search(query, into: &top)
    return top.matches.map(\.face.rawValue)
}

print("vector-bench: pgvector HNSW (m \(m), ef_construction \(efConstruction)) on \(machineDescription())")
print("Server: \(location.description); \(queryCount) queries, recall@\(k) against exact search")
for kind in kinds {
    let count = kind.name == "prints" ? printCount : faceCount
    guard count > 0 else { continue }
    let table = "vector_bench_\(kind.name)_\(count)"
    let index = "\(table)_m\(m)_ef\(efConstruction)"
    let queries = (0..<queryCount).map { kind.half ? normalised(kind.query($0)) : kind.query($0) }
    let connection = try await connect()
    try await run(connection, "CREATE EXTENSION IF NOT EXISTS vector")
    var inserted: Double? = nil
    let exists = try await integer(connection, "SELECT count(*) FROM pg_class WHERE relname = '\(table)'") > 0
    let kept = exists ? try await integer(connection, "SELECT count(*) FROM \(table)") : 0
    if kept != count {
        note("\(kind.name): drawing \(count) rows, inserting")
        let rows = stored(kind, count: count)
        try await run(connection, "DROP TABLE IF EXISTS \(table)")
        try await run(connection, "CREATE TABLE \(table) (id bigint PRIMARY KEY, v \(kind.type) NOT NULL)")
        inserted = try await insert(rows, kind: kind, table: table)
        try await run(connection, "VACUUM ANALYZE \(table)")
    }
    var built: Double? = nil
    if try await integer(connection, "SELECT count(*) FROM pg_class WHERE relname = '\(index)'") == 0 {
        note("\(kind.name): building the index")
        for other in try await connection.query(
            "SELECT indexname FROM pg_indexes WHERE tablename = \(table) AND indexname <> \(table + "_pkey")",
            logger: logger
        ).collect() {
            try await run(connection, "DROP INDEX \(try other.decode(String.self))")
        }
        try await run(connection, "SET maintenance_work_mem = '8GB'")
        try await run(
            connection,
            "SET max_parallel_maintenance_workers = \(max(0, ProcessInfo.processInfo.activeProcessorCount - 1))")
        let start = Date()
        try await run(
            connection,
            """
            CREATE INDEX \(index) ON \(table) USING hnsw (v \(kind.operatorClass)) \
            WITH (m = \(m), ef_construction = \(efConstruction))
            """
        )
        built = Date().timeIntervalSince(start)
    }
    let tableMB = try await integer(connection, "SELECT pg_table_size('\(table)') / 1048576")
    let indexMB = try await integer(connection, "SELECT pg_relation_size('\(index)') / 1048576")
    print("")
    print("### \(kind.name): \(count) × \(kind.type), \(kind.operatorClass)")
    print("")
    print(
        "Insert: \(inserted.map { String(format: "%.0f rows/s", Double(count) / $0) } ?? "kept from an earlier run"); "
            + "index build: \(built.map { String(format: "%.0f s", $0) } ?? "kept from an earlier run"); "
            + "table \(tableMB) MB, index \(indexMB) MB")
    if !beams.isEmpty {
        print("")
        print("| ef_search | candidates | recall@\(k) | p50 ms | p99 ms |")
        print("|---:|---:|---:|---:|---:|")
    }
    var truth: [[Int64]] = []
    if !beams.isEmpty {
        note("\(kind.name): drawing \(count) rows, exact search")
        truth = try exactNearest(stored(kind, count: count), queries, length: kind.length)
    }
    for beam in beams {
        for candidates in candidateCounts where candidates >= k {
            var times: [Double] = [], found = 0
            for (q, query) in queries.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                let nearest = try await search(
                    query, kind: kind, table: table, beam: max(beam, candidates), candidates: candidates,
                    on: connection)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                found += Set(nearest).intersection(truth[q]).count
            }
            times.sort()
            print(
                String(
                    format: "| %d | %d | %.3f | %.2f | %.2f |", beam, candidates,
                    Double(found) / Double(k * queries.count), percentile(times, 0.5), percentile(times, 0.99)))
        }
    }
    // 16 connections at the catalog's settings.
    let beam = concurrentBeam, candidates = 40
    let start = Date()
    let times = try await withThrowingTaskGroup(of: [Double].self) { group in
        for client in 0..<16 {
            group.addTask {
                let connection = try await connect()
                var times: [Double] = []
                for q in stride(from: client, to: queries.count * 4, by: 16) {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    _ = try await search(
                        queries[q % queries.count], kind: kind, table: table, beam: beam, candidates: candidates,
                        on: connection)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6)
                }
                try await connection.close()
                return times
            }
        }
        var all: [Double] = []
        for try await times in group { all += times }
        return all.sorted()
    }
    print("")
    print(
        String(
            format: "16 connections (ef_search %d, %d candidates): %.0f searches/s, p50 %.1f ms, p99 %.1f ms",
            beam, candidates, Double(times.count) / Date().timeIntervalSince(start), percentile(times, 0.5),
            percentile(times, 0.99)))
    try await connection.close().get()
}
