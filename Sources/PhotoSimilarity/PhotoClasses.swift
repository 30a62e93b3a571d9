import Foundation

/// What a photo shows as the print network's classifier sees it: its most probable ImageNet classes
/// (``ImageNetClasses``) with their probabilities (the softmax of the logits), the rest dropped, small
/// enough to store beside the print and to score every photo of a library against a word in memory.
public struct PhotoClasses: Sendable, Equatable {
    /// How many classes a photo keeps: on caltech-dev, word-bench's mAP with 100 is within 0.001 of all
    /// 1,000's, at a tenth of the size; 20 loses 0.03 (Benchmarks/RESULTS.md, "Photos found by a word").
    public static let storedCount = 100

    /// The classes, most probable first.
    public let classes: [Int]
    /// Their probabilities, in the same order.
    public let probabilities: [Float]

    /// The `count` most probable classes of a photo's `logits` (ties to the lower class).
    public init(logits: [Float], keeping count: Int = PhotoClasses.storedCount) {
        let largest = logits.max() ?? 0
        let exponentials = logits.map { exp($0 - largest) }
        let total = exponentials.reduce(0, +)
        let kept = logits.indices.sorted { (exponentials[$0], $1) > (exponentials[$1], $0) }.prefix(count)
        classes = Array(kept)
        probabilities = kept.map { exponentials[$0] / total }
    }

    /// Classes and probabilities as stored.
    public init(classes: [Int], probabilities: [Float]) {
        self.classes = classes
        self.probabilities = probabilities
    }

    /// The stored form: each class as a little-endian UInt16 followed by its probability as a little-endian
    /// Float32.
    public var bytes: Data {
        var data = Data(capacity: classes.count * 6)
        for (index, probability) in zip(classes, probabilities) {
            withUnsafeBytes(of: UInt16(index).littleEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: probability.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Reads the stored form; nil where `bytes` are not one (a length not a multiple of 6, a class past
    /// `classCount`, a probability outside 0…1).
    public init?(bytes: Data, classCount: Int = 1000) {
        guard bytes.count % 6 == 0 else { return nil }
        var classes: [Int] = [], probabilities: [Float] = []
        classes.reserveCapacity(bytes.count / 6)
        probabilities.reserveCapacity(bytes.count / 6)
        let valid = bytes.withUnsafeBytes { raw -> Bool in
            for start in stride(from: 0, to: raw.count, by: 6) {
                let index = Int(UInt16(raw[start]) | UInt16(raw[start + 1]) << 8)
                var bits: UInt32 = 0
                for byte in 0..<4 { bits |= UInt32(raw[start + 2 + byte]) << (8 * byte) }
                let probability = Float(bitPattern: bits)
                guard index < classCount, probability >= 0, probability <= 1 else { return false }
                classes.append(index)
                probabilities.append(probability)
            }
            return true
        }
        guard valid else { return nil }
        self.init(classes: classes, probabilities: probabilities)
    }

    /// The probability that the photo shows one of the classes weighted in `weights` (a weight per class, 0
    /// for classes that do not count), as far as its kept classes tell.
    public func probability(weightedBy weights: [Float]) -> Float {
        var sum: Float = 0
        for (index, probability) in zip(classes, probabilities) { sum += weights[index] * probability }
        return sum
    }
}
