import ArgumentParser
import Catalog
import FaceDetection
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// The `--db` option of the database commands, and opening the catalog.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help: """
            The catalog: a SQLite file, or a postgres://user@host:port/database URL. Default: $FACESEARCH_DB, else \
            cbir.sqlite.
            """)
    var db = ProcessInfo.processInfo.environment["FACESEARCH_DB"] ?? "cbir.sqlite"

    /// Opens the catalog (no model, no device): read-only unless the command writes (so that a read-only
    /// file can be searched), and created only by `index`: asking an absent database a question is an
    /// error, not an empty answer.
    func open(access: Catalog.Access = .readOnly, create: Bool = false) throws -> Catalog {
        try Catalog(path: create ? db : existing(), access: access)
    }

    /// The database's path, once it is known to exist.
    func existing() throws -> String {
        guard PostgresLocation.isURL(db) || FileManager.default.fileExists(atPath: db) else {
            throw CommandFailure("\(db): no such database (run `cbir index <folder> --db \(db)` first)")
        }
        return db
    }

    /// The catalog as messages name it: a URL without its password.
    var shown: String { PostgresLocation.withoutPassword(db) }
}

/// The `--detector` option of the commands that find faces: detecting, indexing and probing.
struct DetectorOption: ParsableArguments {
    @Option(
        help: """
            Face detector: \(DetectorChoice.names.joined(separator: ", ")). blazeface (the default): MediaPipe's \
            BlazeFace, \
            full range, its short-range model where that finds nothing; haar: OpenCV's Haar cascade, its LBP cascade \
            where \
            that finds nothing; lbp, blazeface-short, or a cascade file alone. Any can probe a database another indexed.
            """)
    var detector = DetectorChoice.default

    /// The faces' analysis with this detector on `context` (nil: each stage on the device that runs it fastest).
    func faces(context: RenderContext?) throws -> FaceAnalysis {
        try FaceAnalysis(context: context, detector: detector)
    }
}

extension DetectorChoice: ExpressibleByArgument {
    public static var defaultCompletionKind: CompletionKind { .list(named.map(\.description)) }
}

/// A probe photo and which of its faces to ask about.
struct ProbeOptions: ParsableArguments {
    @Argument(help: "The probe photo.")
    var probe: String

    @Option(
        parsing: .unconditional, help: "Which face of the probe, numbered from 1 left to right. Default: the largest.")
    var face: Int?

    func validate() throws {
        guard (face ?? 1) >= 1 else { throw ValidationError("--face counts from 1") }
    }

    var choice: FaceChoice { face.map(FaceChoice.number) ?? .largest }
}

/// The `--weights` option.
struct WeightsOption: ParsableArguments {
    @Option(
        help: """
            Block weights: reference (the reference system's 8×8 map), uniform, ahonen (7×7 grids) or a weight-map \
            file.
            """
    )
    var weights = "reference"

    func weightMap() throws -> WeightMap {
        switch weights {
        case "uniform": .uniform()
        case "reference": .reference
        case "ahonen": .ahonen
        default: try WeightMap(contentsOf: weights)
        }
    }
}

extension Matcher: ExpressibleByArgument {}

/// A command's failure, said in one line on stderr.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Pretty, key-sorted JSON: the documented, stable output of `--json`.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    Swift.print(String(decoding: try encoder.encode(value), as: UTF8.self))  // JSON keeps paths as stored
}
