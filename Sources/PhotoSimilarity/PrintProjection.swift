import Foundation
import ImageKernels
import NeuralNetworks

/// Shorter stand-ins for photo prints, to screen pairs before they are measured in full: a print's
/// coordinates on an orthonormal basis of the directions a sample of the prints spans most, with the length
/// of the part the basis leaves out appended. Two prints' stand-ins lie no farther apart than the prints do
/// (the left-out parts differ by at least the difference of their lengths), so a pair whose stand-ins are
/// beyond a distance is beyond it too. Photos' prints put most of their length in few directions, so the
/// stand-ins of unrelated photos lie almost as far apart as the photos.
struct PrintProjection {
    /// The basis as a fully connected layer's weights: row i holds print value i's share of each direction.
    let weights: [Float]
    /// How many directions the basis has (fewer than asked for where the sample spans fewer).
    let dimensions: Int
    /// Values in a stand-in: the coordinates, then the left-out length.
    var length: Int { dimensions + 1 }

    private static let printLength = PhotoPrinter.length
    /// Prints the basis is found from, spread evenly over all of them.
    private static let sampleSize = 2048
    /// Prints projected per launch, so that a large gallery is not held twice.
    private static let chunkSize = 8192

    /// A basis of at most `dimensions` directions for the `count` prints packed in `prints`, found by a
    /// randomised range finder: the sample times random directions, times the sample again (which leans
    /// the directions towards those the sample spans most), made orthonormal. The random directions come
    /// from a fixed seed, so the same prints give the same basis.
    init(sampling prints: [Float], count: Int, dimensions: Int, context: RenderContext) throws(RenderError) {
        let length = Self.printLength, samples = min(count, Self.sampleSize)
        var sample = [Float](repeating: 0, count: samples * length)
        for s in 0..<samples {
            let row = s * count / samples
            sample[s * length..<(s + 1) * length] = prints[row * length..<(row + 1) * length]
        }
        var generator = SplitMix64(seed: 0x5052_494E_5453)
        let directions = (0..<length * dimensions).map { _ in generator.nextNormal() }
        let products = try Self.product(sample, count: samples, inputs: length, weights: directions, context: context)
        var transposed = [Float](repeating: 0, count: samples * length)
        for s in 0..<samples {
            for i in 0..<length { transposed[i * samples + s] = sample[s * length + i] }
        }
        let spanned = try Self.product(
            transposed, count: length, inputs: samples, weights: products, context: context)
        let basis = Self.orthonormalColumns(of: spanned, rows: length, columns: dimensions)
        self.dimensions = basis.count
        weights = (0..<length * basis.count).map { Float(basis[$0 % basis.count][$0 / basis.count]) }
    }

    /// The stand-ins of the `count` prints packed in `prints`, `length` values each, packed the same way.
    func standIns(of prints: [Float], count: Int, context: RenderContext) throws(RenderError) -> [Float] {
        let printLength = Self.printLength, length = length
        var standIns = [Float](repeating: 0, count: count * length)
        for first in stride(from: 0, to: count, by: Self.chunkSize) {
            let rows = min(Self.chunkSize, count - first)
            let coordinates = try Self.product(
                Array(prints[first * printLength..<(first + rows) * printLength]), count: rows, inputs: printLength,
                weights: weights, context: context)
            for r in 0..<rows {
                let print = first + r
                var squaredLength = Float(0), kept = Float(0)
                for i in 0..<printLength {
                    squaredLength += prints[print * printLength + i] * prints[print * printLength + i]
                }
                for j in 0..<dimensions {
                    let value = coordinates[r * dimensions + j]
                    standIns[print * length + j] = value
                    kept += value * value
                }
                standIns[print * length + dimensions] = max(0, squaredLength - kept).squareRoot()
            }
        }
        return standIns
    }

    /// The share of pairs among an even spread of `sampleCount` of the `count` packed `standIns` whose
    /// squared distance is within `reach`: about the share a search would measure in full.
    func shareWithinReach(of standIns: [Float], count: Int, reach: Float, sampleCount: Int = 256) -> Double {
        let length = length, samples = min(count, sampleCount)
        guard samples > 1 else { return 0 }
        let rows = (0..<samples).map { $0 * count / samples }
        var within = 0
        for (i, a) in rows.enumerated() {
            for b in rows[(i + 1)...] {
                var squared = Float(0)
                for j in 0..<length {
                    let difference = standIns[a * length + j] - standIns[b * length + j]
                    squared += difference * difference
                }
                if squared <= reach { within += 1 }
            }
        }
        return Double(within) / Double(samples * (samples - 1) / 2)
    }

    /// `count` rows of `inputs` values times `weights` (inputs × outputs) on `context`'s device.
    private static func product(
        _ rows: [Float], count: Int, inputs: Int, weights: [Float], context: RenderContext
    ) throws(RenderError) -> [Float] {
        let outputs = weights.count / inputs
        let input = try context.makeResidentImage(
            ImageDescriptor(width: 1, height: 1, channels: inputs, batch: count, elementType: .float32),
            contents: rows[...])
        let matrix = try context.makeResidentImage(
            ImageDescriptor(width: outputs, height: inputs, elementType: .float32), contents: weights[...])
        let biases = try context.makeResidentImage(
            ImageDescriptor(width: outputs, height: 1, elementType: .float32),
            contents: [Float](repeating: 0, count: outputs)[...])
        return try context.render(input.image.fullyConnected(weights: matrix.image, biases: biases.image)).floatValues
    }

    /// The columns of a `rows` × `columns` matrix made orthonormal in double precision (modified Gram–Schmidt,
    /// twice over, which leaves them orthogonal to rounding), dropping those that lie in the span of the
    /// ones before. Each column comes back as `rows` values.
    private static func orthonormalColumns(of matrix: [Float], rows: Int, columns: Int) -> [[Double]] {
        // Columns as vectors of four, zero-padded.
        let quads = (rows + 3) / 4
        func dot(_ a: [SIMD4<Double>], _ b: [SIMD4<Double>]) -> Double {
            var sums = SIMD4<Double>()
            for i in 0..<quads { sums.addProduct(a[i], b[i]) }
            return sums.sum()
        }
        var basis: [[SIMD4<Double>]] = []
        for c in 0..<columns {
            var column = (0..<quads).map { q in
                SIMD4<Double>((0..<4).map { q * 4 + $0 < rows ? Double(matrix[(q * 4 + $0) * columns + c]) : 0 })
            }
            let original = dot(column, column).squareRoot()
            for _ in 0..<2 {
                for direction in basis {
                    let share = SIMD4(repeating: dot(direction, column))
                    for i in 0..<quads { column[i].addProduct(-share, direction[i]) }
                }
            }
            let remaining = dot(column, column).squareRoot()
            guard original > 0, remaining > 1e-6 * original else { continue }
            basis.append(column.map { $0 / remaining })
        }
        return basis.map { column in (0..<rows).map { column[$0 / 4][$0 % 4] } }
    }
}

/// A small, fast generator with a fixed seed, so that a random basis is the same from run to run.
private struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal value (Box–Muller).
    mutating func nextNormal() -> Float {
        let u = (Double(next() >> 11) + 0.5) / Double(1 << 53), v = Double(next() >> 11) / Double(1 << 53)
        return Float((-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * Double.pi * v))
    }
}
