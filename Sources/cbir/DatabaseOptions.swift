import ArgumentParser
import CBIRDatabase
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// The `--db` option of the database commands, and opening the database with the face indexer.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "The database file.")
    var db = "cbir.sqlite"

    /// Opens the database, creating it only when `create` is set: asking an absent database a question is
    /// an error, not an empty answer.
    func open(context: RenderContext, create: Bool = false) throws -> (CBIRDatabase, FaceIndexer) {
        guard create || FileManager.default.fileExists(atPath: db) else {
            throw CommandFailure("\(db): no such database (run `cbir index <folder> --db \(db)` first)")
        }
        let indexer = try FaceIndexer(context: context)
        return (try CBIRDatabase(path: db, indexers: [indexer]), indexer)
    }
}

/// A probe photo and which of its faces to ask about.
struct ProbeOptions: ParsableArguments {
    @Argument(help: "The probe photo.")
    var probe: String

    @Option(help: "Which face of the probe, numbered from 1 left to right. Default: the largest.")
    var face: Int?

    /// The chosen face (described as indexing describes faces), its number and how many the photo has.
    func chosenFace(_ indexer: FaceIndexer, context: RenderContext) throws -> (face: FaceRecord, number: Int, count: Int) {
        let photo = try Photo(path: probe, bytes: try ImageDecoder.contents(of: probe), context: context)
        let faces = try indexer.analyze(photo).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard !faces.isEmpty else { throw CommandFailure("\(probe): no face found") }
        if let face {
            guard (1...faces.count).contains(face) else {
                throw CommandFailure("\(probe): --face \(face), but the photo has \(faces.count) face\(faces.count == 1 ? "" : "s")")
            }
            return (faces[face - 1], face, faces.count)
        }
        let largest = faces.indices.max { faces[$0].width < faces[$1].width } ?? 0
        return (faces[largest], largest + 1, faces.count)
    }
}

/// The `--weights` option.
struct WeightsOption: ParsableArguments {
    @Option(help: "Block weights: reference (the reference system's 8×8 map), uniform, ahonen (7×7 grids) or a weight-map file.")
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
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
