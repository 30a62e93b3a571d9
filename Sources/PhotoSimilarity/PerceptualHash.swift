import ImageKernels
import Synchronization

/// A photo's 64-bit DCT hash (pHash, as imagehash makes it): its grey plane area-resized to 32 × 32, the
/// 8 × 8 lowest frequencies of that thumbnail's DCT, each bit set where its coefficient exceeds their median
/// (row-major, the first coefficient in the most significant bit). Copies of a photo (re-encoded, resized,
/// brightened) keep nearly all its bits; other photos differ in about half. It finds copies, not other
/// views of one scene, and a crop defeats it.
public struct PerceptualHash: Hashable, Sendable, CustomStringConvertible {
    public let bits: UInt64

    /// The side of the grey thumbnail hashed.
    public static let thumbnailSide = 32

    public init(bits: UInt64) {
        self.bits = bits
    }

    /// The hash of a DCT's 8 × 8 lowest frequencies, row-major.
    public init(lowFrequencies: some Collection<Float>) {
        let sorted = lowFrequencies.sorted()
        let median = sorted.isEmpty ? 0 : (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
        bits = lowFrequencies.reduce(UInt64(0)) { $0 << 1 | ($1 > median ? 1 : 0) }
    }

    /// The number of bits that differ (0 for copies, about 32 for unrelated photos).
    public func distance(to other: PerceptualHash) -> Int {
        (bits ^ other.bits).nonzeroBitCount
    }

    /// Every pair `(a, b)`, `a < b`, of `hashes` that differ in at most `distance` bits: a plain comparison
    /// of all pairs, spread over the cores (100,000 hashes take seconds).
    public static func pairs(in hashes: [PerceptualHash], within distance: Int) -> [(Int, Int)] {
        let bits = hashes.map(\.bits), count = bits.count
        let found = Mutex<[(Int, Int)]>([])
        // Rows in an order that gives each range a similar share of the triangle's pairs.
        CPUParallel.forEachRange(count) { range in
            var pairs: [(Int, Int)] = []
            for row in range {
                let a = row.isMultiple(of: 2) ? row / 2 : count - 1 - row / 2
                for b in a + 1..<count where (bits[a] ^ bits[b]).nonzeroBitCount <= distance { pairs.append((a, b)) }
            }
            found.withLock { $0 += pairs }
        }
        return found.withLock { $0.sorted { $0 < $1 } }
    }

    /// Sixteen hexadecimal digits.
    public var description: String {
        let digits = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The recipe of the thumbnails' DCT frequencies for a batch of uint8 grey planes (any size).
    public static func lowFrequencies(ofGray gray: Image) -> Image {
        gray.resized(width: thumbnailSide, height: thumbnailSide, method: .area).lowFrequencyDCT(count: 8)
    }

    /// One hash per grey plane (each one uint8 channel), all in one render on `context`.
    public static func hashes(ofGray planes: [PixelBuffer], context: RenderContext) throws(PhotoError)
        -> [PerceptualHash]
    {
        for plane in planes where plane.descriptor.elementType != .uint8 || plane.descriptor.channels != 1 {
            throw .invalidInput("perceptual hashes take uint8 grey planes, got \(plane.descriptor)")
        }
        do {
            return try context.render(planes.map { lowFrequencies(ofGray: Image($0)) }).map {
                PerceptualHash(lowFrequencies: $0.floatValues)
            }
        } catch {
            throw .render(error)
        }
    }
}
