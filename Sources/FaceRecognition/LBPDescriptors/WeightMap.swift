import Foundation
import ImageKernels

/// A weight per grid block for chi-square and NBNN distances (Ahonen et al., 2006). A block of weight
/// 0 is skipped entirely, not multiplied by zero.
public struct WeightMap: Sendable, Equatable, CustomStringConvertible {
    public let columns: Int
    public let rows: Int
    /// Row-major, top row first.
    public let weights: [Float]

    public init(columns: Int, rows: Int, weights: [Float]) throws(RecognitionError) {
        guard columns > 0, rows > 0, weights.count == columns * rows else {
            throw .invalidWeightMap(source: "weights", reason: "\(weights.count) values for a \(columns)×\(rows) grid")
        }
        guard weights.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            throw .invalidWeightMap(source: "weights", reason: "weights must be finite and ≥ 0")
        }
        self.columns = columns
        self.rows = rows
        self.weights = weights
    }

    /// Every block weighs 1.
    public static func uniform(columns: Int = 8, rows: Int = 8) -> WeightMap {
        WeightMap(unchecked: columns, rows, [Float](repeating: 1, count: columns * rows))
    }

    /// The reference system's 8×8 map: eyes weigh 8, nose and mouth 4, the forehead and border 0.
    public static let reference = WeightMap(
        unchecked: 8, 8,
        [
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 8, 8, 8, 8, 8, 8, 0,
            0, 8, 8, 8, 8, 8, 8, 0,
            0, 2, 1, 1, 1, 1, 2, 0,
            0, 2, 1, 4, 4, 1, 2, 0,
            0, 0, 1, 4, 4, 1, 0, 0,
            0, 0, 1, 1, 1, 1, 0, 0,
        ])

    /// Ahonen, Hadid and Pietikäinen's 7×7 map (2006).
    public static let ahonen = WeightMap(
        unchecked: 7, 7,
        [
            2, 1, 1, 1, 1, 1, 2,
            2, 4, 4, 1, 4, 4, 2,
            1, 1, 1, 0, 1, 1, 1,
            0, 1, 1, 0, 1, 1, 0,
            0, 1, 1, 1, 1, 1, 0,
            0, 1, 1, 2, 1, 1, 0,
            0, 1, 1, 1, 1, 1, 0,
        ])

    /// A map from text: one grid row per line (or rows separated by `/`), numbers separated by spaces
    /// or commas, `#` starting a comment. `source` names the text in errors.
    public init(text: String, source: String = "weight map") throws(RecognitionError) {
        var rows: [[Float]] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "/" }) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\r" })
            guard !fields.isEmpty else { continue }
            var row: [Float] = []
            for field in fields {
                guard let value = Float(field), value.isFinite, value >= 0 else {
                    throw .invalidWeightMap(source: source, reason: "'\(field)' is not a weight ≥ 0")
                }
                row.append(value)
            }
            rows.append(row)
        }
        guard let first = rows.first else { throw .invalidWeightMap(source: source, reason: "no rows") }
        guard rows.allSatisfy({ $0.count == first.count }) else {
            throw .invalidWeightMap(source: source, reason: "rows have different lengths")
        }
        self.init(unchecked: first.count, rows.count, rows.flatMap { $0 })
    }

    /// A map read from a small text file (see ``init(text:source:)``).
    public init(contentsOf path: String) throws(RecognitionError) {
        let bytes: [UInt8]
        do { bytes = try RegularFile.contents(of: path, limit: 1 << 20) } catch {
            throw .invalidWeightMap(source: path, reason: "cannot read the file: \(error)")
        }
        try self.init(text: String(decoding: bytes, as: UTF8.self), source: path)
    }

    private init(unchecked columns: Int, _ rows: Int, _ weights: [Float]) {
        self.columns = columns
        self.rows = rows
        self.weights = weights
    }

    /// The blocks with a weight above 0 and their weights: the only blocks a search looks at.
    public var activeBlocks: [(block: Int, weight: Float)] {
        weights.enumerated().filter { $0.element > 0 }.map { ($0.offset, $0.element) }
    }

    /// Throws unless the map fits the descriptors' grid.
    public func check(against parameters: DescriptorParameters) throws(RecognitionError) {
        guard columns == parameters.gridColumns, rows == parameters.gridRows else {
            throw .weightMapMismatch(
                map: "\(columns)×\(rows)", grid: "\(parameters.gridColumns)×\(parameters.gridRows)")
        }
    }

    public var description: String { "\(columns)×\(rows) weights" }
}
