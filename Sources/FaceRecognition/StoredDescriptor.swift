import Foundation

/// Face descriptors in a compact, lossless stored form. A block's histogram is its code counts times
/// 1 / its pixel count (``BlockHistogram``), so it is kept as counts: per block, a bitmap of its nonzero
/// bins, then each nonzero count less one in one byte (two, little-endian, where blocks have more than 256
/// pixels). The standard descriptor takes about 6 KB instead of 64 KB of Float32 (61 of 256 bins are
/// nonzero on average in the faces of the index-bench gallery), so a new process reads 10k faces' descriptors
/// in a tenth of the time. Histograms that are not such counts (made some other way) are kept as raw values.
extension FaceDescriptor {
    /// The stored forms, told apart by their first byte.
    private enum StoredForm: UInt8 {
        /// Raw little-endian Float32 values.
        case values = 0
        /// Nonzero counts per block, as above.
        case counts = 1
    }

    /// The descriptor in its stored form: counts where they give back exactly these values, else raw values.
    public func encoded() -> Data {
        encodedCounts() ?? Self.encoded(values: histograms)
    }

    /// Values in the raw stored form, whatever their count: how a descriptor that no longer fits its
    /// parameters keeps its values, to be reported when read.
    public static func encoded(values: [Float]) -> Data {
        Data([StoredForm.values.rawValue]) + values.littleEndianBytes
    }

    /// A descriptor back from its stored form; a damaged one is an error.
    public init(parameters: DescriptorParameters, encoded data: Data) throws(RecognitionError) {
        let histograms = data.withUnsafeBytes { bytes in
            Result { () throws(RecognitionError) -> [Float] in
                switch bytes.first.flatMap(StoredForm.init(rawValue:)) {
                case .values?: return try Self.values(bytes.dropFirst(), length: parameters.length)
                case .counts?: return try Self.histograms(counts: bytes.dropFirst(), parameters: parameters)
                case nil: throw .damagedDescriptor(bytes.isEmpty ? "it is empty" : "unknown stored form \(bytes[0])")
                }
            }
        }
        try self.init(parameters: parameters, histograms: histograms.get())
    }

    /// Bytes per count for blocks of at most `largestBlock` pixels, or nil where two bytes cannot hold them.
    private static func countBytes(largestBlock: Int) -> Int? {
        largestBlock <= 1 << 8 ? 1 : largestBlock <= 1 << 16 ? 2 : nil
    }

    /// The counts form, or nil unless every value is a count times its block's 1 / pixel count.
    private func encodedCounts() -> Data? {
        let pixels = parameters.blockPixelCounts, bins = parameters.bins, bitmapBytes = (bins + 7) / 8
        guard let largest = pixels.max(), let countBytes = Self.countBytes(largestBlock: largest), pixels.allSatisfy({ $0 > 0 }) else {
            return nil
        }
        var bytes: [UInt8] = [StoredForm.counts.rawValue]
        for (block, pixelCount) in pixels.enumerated() {
            let scale = 1 / Float(pixelCount), bitmap = bytes.count
            bytes += repeatElement(0, count: bitmapBytes)
            for bin in 0..<bins {
                let value = histograms[block * bins + bin], count = (value * Float(pixelCount)).rounded()
                guard count >= 0, count <= Float(pixelCount), (count * scale).bitPattern == value.bitPattern else { return nil }
                guard count > 0 else { continue }
                bytes[bitmap + bin / 8] |= 1 << (bin % 8)
                let stored = Int(count) - 1
                bytes.append(UInt8(truncatingIfNeeded: stored))
                if countBytes == 2 { bytes.append(UInt8(truncatingIfNeeded: stored >> 8)) }
            }
        }
        return Data(bytes)
    }

    /// Raw little-endian Float32 values, `length` of them.
    private static func values(_ bytes: Slice<UnsafeRawBufferPointer>, length: Int) throws(RecognitionError) -> [Float] {
        guard bytes.count == 4 * length else { throw .damagedDescriptor("\(bytes.count / 4) values for \(length)") }
        return [Float](littleEndianBytes: bytes)
    }

    /// Histograms back from the counts form.
    private static func histograms(counts bytes: Slice<UnsafeRawBufferPointer>,
                                   parameters: DescriptorParameters) throws(RecognitionError) -> [Float] {
        let pixels = parameters.blockPixelCounts, bins = parameters.bins, bitmapBytes = (bins + 7) / 8
        guard let countBytes = Self.countBytes(largestBlock: pixels.max() ?? 0) else {
            throw .damagedDescriptor("counts stored for blocks of more than 65,536 pixels")
        }
        var histograms = [Float](repeating: 0, count: parameters.length)
        var offset = bytes.startIndex
        for (block, pixelCount) in pixels.enumerated() {
            guard offset + bitmapBytes <= bytes.endIndex else { throw .damagedDescriptor("it ends in block \(block)") }
            let bitmap = offset
            offset += bitmapBytes
            let scale = 1 / Float(pixelCount)
            var total = 0
            for byte in 0..<bitmapBytes {
                var bits = bytes[bitmap + byte]
                while bits != 0 {
                    let bin = byte * 8 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    guard bin < bins, offset + countBytes <= bytes.endIndex else {
                        throw .damagedDescriptor(bin < bins ? "it ends in block \(block)" : "block \(block) has bin \(bin) of \(bins)")
                    }
                    let count = 1 + Int(bytes[offset]) + (countBytes == 2 ? Int(bytes[offset + 1]) << 8 : 0)
                    offset += countBytes
                    total += count
                    histograms[block * bins + bin] = Float(count) * scale
                }
            }
            guard total <= pixelCount else { throw .damagedDescriptor("block \(block) counts \(total) codes in \(pixelCount) pixels") }
        }
        guard offset == bytes.endIndex else { throw .damagedDescriptor("\(bytes.endIndex - offset) bytes after the last block") }
        return histograms
    }
}
