import BenchmarkSupport
import Catalog
import FaceDetection
import FaceRecognition
import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import Logging
import PostgresNIO

// index-bench: indexing throughput (photos and faces per second) on a gallery of 1–3 megapixel photos made
// from the shared wild photos (cropped, rescaled, re-encoded, mixed): first the default `cbir index` (faces and
// prints) beside faces alone and prints alone, then faces per device, (with --postgres URL) into SQLite against
// into PostgreSQL, then query latency per matcher and device with the database grown to 10k faces. Prints
// markdown tables. --headline-only stops after the first table, --analyses-only before the queries.

let options = UsageOptions(
    usage: """
        index-bench [--photos 1000] [--faces 10000] [--runs 5] [--gallery DIR] [--datasets ../shared/datasets] \
        [--postgres postgres://user@host:port/database] [--analyses-only] [--headline-only]
        """)
func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

let photoCount = options.value("--photos").flatMap(Int.init) ?? 1000
let faceTarget = options.value("--faces").flatMap(Int.init) ?? 10_000
let runs = options.value("--runs").flatMap(Int.init) ?? 5
let sources = (options.value("--datasets") ?? "../shared/datasets") + "/wild-photos"
let gallery = options.value("--gallery") ?? NSTemporaryDirectory() + "index-bench-gallery-\(photoCount)"
let work = NSTemporaryDirectory() + "index-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

/// Makes the gallery once (kept for later runs): photo i is shared photo i mod 25, cropped to 70–100 % of
/// each side at a random place, rescaled to 1–3 megapixels, saved as JPEG of quality 70–95 (one in ten
/// as PNG). Seeded, so every run makes the same gallery.
func makeGallery() throws {
    let done = gallery + "/.complete"
    if FileManager.default.fileExists(atPath: done) { return }
    try? FileManager.default.removeItem(atPath: gallery)
    try FileManager.default.createDirectory(atPath: gallery, withIntermediateDirectories: true)
    let originals = (FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? [])
        .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted()
        .compactMap { name -> PixelBuffer? in try? ImageDecoder.decode(contentsOf: sources + "/" + name) }
        .map { photo in  // JPEG has no alpha: keep the colour planes
            guard photo.descriptor.channels == 4, let d = Optional(photo.descriptor) else { return photo }
            return
                (try? PixelBuffer(
                    width: d.width, height: d.height, channels: 3,
                    values: Array(photo.bytes.prefix(3 * d.planePixelCount)))) ?? photo
        }
    guard !originals.isEmpty else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: sources]) }
    var random = SeededGenerator(seed: 2026)
    let context = RenderContext(device: .cpu)
    for index in 0..<photoCount {
        let photo = originals[index % originals.count], d = photo.descriptor
        let width = Int(Double(d.width) * Double.random(in: 0.7...1, using: &random))
        let height = Int(Double(d.height) * Double.random(in: 0.7...1, using: &random))
        let crop = PixelRect(
            x: Int.random(in: 0...d.width - width, using: &random),
            y: Int.random(in: 0...d.height - height, using: &random),
            width: width, height: height)
        let scale = (Double.random(in: 1e6...3e6, using: &random) / Double(width * height)).squareRoot()
        let image = Image(photo).cropped(to: crop)
            .resized(
                width: Int(Double(width) * scale), height: Int(Double(height) * scale),
                method: scale < 1 ? .area : .bilinear)
        let pixels = try context.render(image)
        let name = String(format: "%@/%02d/photo%04d", gallery, index / 100, index)
        try FileManager.default.createDirectory(
            atPath: FileSystemPath.folder(of: name), withIntermediateDirectories: true)
        if index % 10 == 9 {
            try ImageEncoder.write(pixels, to: name + ".png")
        } else {
            try ImageEncoder.write(pixels, to: name + ".jpg", quality: Int.random(in: 70...95, using: &random))
        }
        if index % 100 == 99 { note("made \(index + 1) of \(photoCount) photos") }
    }
    try Data().write(to: URL(fileURLWithPath: done))
}

try makeGallery()
var devices: [Device] = [.cpu]
do { devices.append(try Device.select(.opencl)) } catch { note("index-bench: \(error); timing the CPU device only") }
/// Each device, then `auto` (nil): each kind of work on the device it ran fastest on here.
let choices: [Device?] = devices + (devices.count > 1 ? [nil] : [])
func label(_ device: Device?) -> String { device.map { "\($0.kind)" } ?? "auto" }

print("# index-bench\n")
print("Machine: \(machineDescription()); OpenCL: \(devices.count > 1 ? devices[1].name : "none").\n")
print("Gallery: \(photoCount) photos of 1–3 MP (\(gallery)).\n")
// The headline: what `cbir index FOLDER` does with its defaults, faces (with embeddings) and prints from one
// decode, each stage on its fastest device, beside faces alone and prints alone; the median of `runs` passes,
// each into a new database.
print(
    """
    The default `cbir index` (faces with embeddings and photo prints, each stage on its fastest device), faces \
    alone and prints alone (seconds: the median of \(runs) passes, each into a new database; a print is \
    EfficientNet-Lite0's, with the perceptual hash and sharpness).\n
    """
)
print("| analyses | photos | seconds | photos/s | ÷ faces alone |")
print("|---|---:|---:|---:|---:|")
var facesAloneSeconds = 0.0
for (name, faces, prints) in [
    ("faces", true, false), ("faces and prints (the default)", true, true), ("prints", false, true),
] {
    var seconds: [Double] = [], indexed = 0
    for _ in 0..<runs {
        let database = try Catalog(path: "\(work)/\(UUID().uuidString).sqlite")
        let analyses: [any PhotoAnalysis] =
            (faces ? [try FaceAnalysis()] : []) + (prints ? [try PhotoPrintAnalysis()] : [])
        let run = try await database.index(folder: gallery, analyses: analyses) { progress in
            if progress.done % 100 == 0 { note("\(name): \(progress.done) of \(progress.total)") }
        }
        indexed = run.indexed
        seconds.append(run.elapsed)
    }
    let median = seconds.sorted()[seconds.count / 2]
    if name == "faces" { facesAloneSeconds = median }
    print(
        String(
            format: "| %@ | %d | %.1f | %.1f | %.2f |", name, indexed, median, Double(indexed) / median,
            median / facesAloneSeconds))
}
if options.contains("--headline-only") { exit(0) }
print("\nFaces per device: one pass over the whole gallery into a new database per device, and with auto (each stage")
print("on its fastest device; decode DCT-scaled, detect, find eyes, align,")
print(
    """
    describe, store; \(Catalog.indexingConcurrency) batches of \(Catalog.indexingBatch) files in flight at once, \
    each batch one transaction),
    """
)
print("with dlib embeddings (5 landmarks, chip, ResNet) and without them.\n")
print("| device | embeddings | photos | faces | seconds | photos/s | faces/s |")
print("|---|---|---:|---:|---:|---:|---:|")
var databases: [String] = []
for device in choices {
    for embeddings in [true, false] {
        let path = "\(work)/\(label(device))-\(embeddings).sqlite"
        let database = try Catalog(path: path), context = device.map { RenderContext(device: $0) }
        let faces = try FaceAnalysis(context: context, embeddings: embeddings)
        let run = try await database.index(folder: gallery, analyses: [faces], context: context) { progress in
            if progress.done % 100 == 0 { note("\(label(device)): \(progress.done) of \(progress.total)") }
        }
        let found = try database.statistics().faces
        print(
            String(
                format: "| %@ | %@ | %d | %d | %.1f | %.1f | %.1f |", label(device), embeddings ? "yes" : "no",
                run.indexed, found,
                run.elapsed, Double(run.indexed) / run.elapsed, Double(found) / run.elapsed))
        if embeddings { databases.append(path) }
    }
}

/// Rewrites the catalog's tables at `url` and their indexes (VACUUM FULL) once they are emptied, so that a pass
/// inserts into tables as new as a new SQLite file's, not beside the rows and HNSW entries earlier passes left dead.
func compact(_ url: String) async throws {
    let logger = Logger(label: "index-bench") { _ in SwiftLogNoOpLogHandler() }
    let connection = try await PostgresConnection.connect(
        configuration: try PostgresLocation(url).connectionConfiguration(), id: 1, logger: logger)
    let tables = "images, faces, face_descriptors, face_embeddings, photo_prints, indexing_runs"
    do {
        _ = try await connection.query(PostgresQuery(unsafeSQL: "VACUUM FULL \(tables)"), logger: logger).collect()
    } catch {
        try? await connection.close()
        throw error
    }
    try await connection.close()
}

// The same indexing (faces and prints, auto, with embeddings) into SQLite and into PostgreSQL, passes turn about:
// a new SQLite file each, the PostgreSQL database emptied before each (`Catalog.remove`, then `compact`), so both
// insert every row into new tables.
if let postgres = options.value("--postgres") {
    print(
        """
        \nStores (faces and prints, auto, with embeddings; seconds: the median of \(runs) passes into each, turn \
        about; PostgreSQL at \(PostgresLocation.withoutPassword(postgres)), emptied and compacted before each \
        pass).\n
        """)
    print("| store | photos | seconds | photos/s | ÷ SQLite's photos/s |")
    print("|---|---:|---:|---:|---:|")
    var seconds: [String: [Double]] = [:], indexed = 0
    for _ in 0..<runs {
        for (store, path) in [("SQLite", "\(work)/\(UUID().uuidString).sqlite"), ("PostgreSQL", postgres)] {
            let database = try Catalog(path: path)
            _ = try await database.remove(path: gallery)
            if store == "PostgreSQL" { try await compact(path) }
            let run = try await database.index(
                folder: gallery, analyses: [try FaceAnalysis(), try PhotoPrintAnalysis()]
            ) { progress in
                if progress.done % 100 == 0 { note("\(store): \(progress.done) of \(progress.total)") }
            }
            indexed = run.indexed
            seconds[store, default: []].append(run.elapsed)
        }
    }
    let rate = seconds.mapValues { Double(indexed) / $0.sorted()[$0.count / 2] }
    for store in ["SQLite", "PostgreSQL"] {
        let median = Double(indexed) / (rate[store] ?? 1)
        print(
            String(
                format: "| %@ | %d | %.1f | %.1f | %.2f |", store, indexed, median, rate[store] ?? 0,
                (rate[store] ?? 0) / (rate["SQLite"] ?? 1)))
    }
}
if options.contains("--analyses-only") { exit(0) }

// The face detectors, each stage on its fastest device, with embeddings.
print(
    """
    \nFace detectors (`FaceAnalysis(detector:)`, auto, with embeddings; seconds: the median of \(runs) passes, \
    each into a new database).\n
    """
)
print("| detector | photos | faces | seconds | photos/s | faces/s | ÷ haar's time |")
print("|---|---:|---:|---:|---:|---:|---:|")
var haarSeconds = 0.0
for detector in DetectorChoice.named {
    var seconds: [Double] = [], faces = 0, indexed = 0
    for _ in 0..<runs {
        let database = try Catalog(path: "\(work)/\(detector)-\(UUID().uuidString).sqlite")
        let run = try await database.index(folder: gallery, analyses: [try FaceAnalysis(detector: detector)]) {
            progress in
            if progress.done % 100 == 0 { note("\(detector): \(progress.done) of \(progress.total)") }
        }
        (faces, indexed) = (try database.statistics().faces, run.indexed)
        seconds.append(run.elapsed)
    }
    let median = seconds.sorted()[seconds.count / 2]
    if detector == .haar { haarSeconds = median }
    print(
        String(
            format: "| %@ | %d | %d | %.1f | %.1f | %.1f | %.2f |", "\(detector)", indexed, faces, median,
            Double(indexed) / median,
            Double(faces) / median, median / haarSeconds))
}

// Files in flight at once, one a batch: one, two and one a core (the default), with embeddings, each stage on
// its fastest device; then batches of 1 to 16 files at the default number in flight.
let counts = Array(Set([1, 2, Catalog.indexingConcurrency])).sorted()
/// One indexing pass into a new database: the table row after its first column.
func indexingRun(concurrency: Int, batch: Int) async throws -> String {
    let database = try Catalog(path: "\(work)/\(UUID().uuidString).sqlite")
    let run = try await database.index(
        folder: gallery, analyses: [try FaceAnalysis()], concurrency: concurrency, batch: batch
    ) { progress in
        if progress.done % 100 == 0 {
            note("\(concurrency) at once, \(batch) a batch: \(progress.done) of \(progress.total)")
        }
    }
    let faces = try database.statistics().faces
    return String(
        format: "%d | %.1f | %.1f | %.1f |", run.indexed, run.elapsed, Double(run.indexed) / run.elapsed,
        Double(faces) / run.elapsed)
}
print("\nFiles in flight at once, each on its own (auto, with embeddings, batches of one file; the table above ran")
print(
    """
    \(Catalog.indexingConcurrency) batches of \(Catalog.indexingBatch) files at once, the default: one batch a \
    core, 2 to 16).\n
    """
)
print("| files at once | photos | seconds | photos/s | faces/s |")
print("|---:|---:|---:|---:|---:|")
for concurrency in counts { print("| \(concurrency) | " + (try await indexingRun(concurrency: concurrency, batch: 1))) }
print(
    """
    \nFiles a batch (auto, with embeddings, \(Catalog.indexingConcurrency) batches in flight; a batch's faces are \
    described
    """
)
print("and embedded together and the batch is stored in one transaction).\n")
print("| files a batch | photos | seconds | photos/s | faces/s |")
print("|---:|---:|---:|---:|---:|")
for batch in Array(Set([1, 4, Catalog.indexingBatch, 16])).sorted() {
    print("| \(batch) | " + (try await indexingRun(concurrency: Catalog.indexingConcurrency, batch: batch)))
}

// Grow the first database to the face target with copies of its images and faces (each copy a new image),
// then close it as an indexing process ends: its write-ahead log checkpointed into the file.
let grown = databases[0]
do {
    let queue = try DatabaseQueue(path: grown)
    var copy = 0
    while try queue.read({ db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM faces") ?? 0 }) < faceTarget {
        copy += 1
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO images (path, size, modified, hash, width, height, status, error)
                    SELECT path || '#' || ?, size, modified, hash, width, height, status, error FROM images WHERE \
                    path NOT LIKE '%#%'
                    """, arguments: [copy])
            try db.execute(
                sql: """
                    INSERT INTO faces (image_id, x, y, width, height, angle, left_eye_x, left_eye_y, right_eye_x, \
                    right_eye_y, neighbours,
                                       thumbnail)
                    SELECT copy.id, f.x, f.y, f.width, f.height, f.angle, f.left_eye_x, f.left_eye_y, f.right_eye_x, \
                    f.right_eye_y,
                           f.neighbours, f.thumbnail
                    FROM faces f JOIN images original ON original.id = f.image_id JOIN images copy ON copy.path = \
                    original.path || '#' || ?
                    WHERE original.path NOT LIKE '%#%'
                    """, arguments: [copy])
            // Each copied face's descriptor and embedding: the original face is the one at the same place in the
            // original image.
            for (table, columns) in [
                ("face_descriptors", ["parameters", "descriptor"]), ("face_embeddings", ["embedding"]),
            ] {
                try db.execute(
                    sql: """
                        INSERT INTO \(table) (face_id, \(columns.joined(separator: ", ")))
                        SELECT c.id, \(columns.map { "stored." + $0 }.joined(separator: ", ")) FROM faces c JOIN \
                        images copy ON copy.id = c.image_id
                        JOIN images original ON copy.path = original.path || '#' || ?
                        JOIN faces f ON f.image_id = original.id AND f.x = c.x AND f.y = c.y AND f.width = c.width
                        JOIN \(table) stored ON stored.face_id = f.id
                        """, arguments: [copy])
            }
        }
    }
    _ = try queue.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
}
let database = try Catalog(path: grown)
let statistics = try database.statistics()
let probePath = sources + "/test/obama1.jpg"
print(
    "\nQueries: \(statistics.faces) faces in \(statistics.images) images (the indexed gallery and copies of it), probe")
print(
    "test/obama1.jpg, reference weights, top 10. First: the first query of a process, which loads the faces from SQLite"
)
print(
    """
    into the device gallery (median over 3 databases opened afresh, without the gallery file); then the median of \
    \(runs) queries (each checks the table for changes, searches and reads
    """
)
print("the hits' rows).\n")
print("| matcher | device | first query s | query s (median) |")
print("|---|---|---:|---:|")
let galleryFile = grown + "-faces"
/// The median of a new process's first query over three databases opened afresh (the gallery file removed
/// before each, unless `withFile`), and the last database and query, for the next queries.
func firstQuery(
    _ matcher: Matcher, on device: Device?,
    withFile: Bool
) async throws -> (seconds: Double, database: Catalog, query: FaceQuery, context: RenderContext) {
    var firsts: [Double] = [], last: (Catalog, FaceQuery, RenderContext)?
    let context = try RenderContext.orDefault(device.map { RenderContext(device: $0) }, for: .search)
    let faces = try FaceAnalysis(context: context)
    for _ in 0..<3 {
        if !withFile { try? FileManager.default.removeItem(atPath: galleryFile) }
        let database = try Catalog(path: grown)
        let probe = try database.probe(photo: probePath, with: faces, context: context).face
        let query = FaceQuery(probe: try probe.faceDescriptor(), embedding: try probe.faceEmbedding(), matcher: matcher)
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await query.run(on: database, context: context) { _ in }
        firsts.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        last = (database, query, context)
    }
    guard let (database, query, context) = last else { throw CancellationError() }
    return (firsts.sorted()[1], database, query, context)
}
var fileRows: [String] = []
for matcher in [Matcher.embedding, .weightedChiSquare, .restrictedNBNN, .nbnn] {
    for device in choices {
        // The library's probe path finds and describes the face; the timings are of the search alone.
        let (first, fresh, query, context) = try await firstQuery(matcher, on: device, withFile: false)
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await query.run(on: fresh, context: context) { _ in }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        print(
            String(
                format: "| %@ | %@ | %.3f | %.4f |", matcher.rawValue, label(device), first,
                times.sorted()[times.count / 2]))
        if matcher != .embedding {
            let mapped = try await firstQuery(matcher, on: device, withFile: true).seconds
            fileRows.append(
                String(
                    format: "| %@ | %@ | %.3f | %.3f | %.1f× |", matcher.rawValue, label(device), first, mapped,
                    first / mapped))
        }
    }
}
print(
    """
    \nThe first LBP query of a process that finds the gallery file a previous one wrote (`<database>-faces`: the \
    descriptors
    """
)
print(
    """
    laid out for search and mapped, not read from SQLite), against the first query above (median over 3 databases \
    opened
    """
)
print("afresh; full NBNN still unpacks its dense tiles on its first search).\n")
print("| matcher | device | first query s, from SQLite | first query s, from the file | speed-up |")
print("|---|---|---:|---:|---:|")
for row in fileRows { print(row) }
