import Foundation

/// Face descriptors in a compact, lossless stored form. A block's histogram is its code counts times 1 / its pixel
/// count (``BlockHistogram``), so it is kept as counts: per block, a bitmap of its nonzero bins, then each nonzero
/// count less one in one byte (two, little-endian, where blocks have more than 256 pixels). Most bins of a face's
/// blocks are zero, so the standard descriptor takes about 6 KB instead of 64 KB of Float32, and a new process
/// reads a gallery's descriptors that much sooner. Histograms that are not such counts (made some other way) are
/// kept as raw values.
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
        guard let largest = pixels.max(), let countBytes = Self.countBytes(largestBlock: largest),
            pixels.allSatisfy({ $0 > 0 })
        else {
            return nil
        }
        var bytes: [UInt8] = [StoredForm.counts.rawValue]
        for (block, pixelCount) in pixels.enumerated() {
            let scale = 1 / Float(pixelCount), bitmap = bytes.count
            bytes += repeatElement(0, count: bitmapBytes)
            for bin in 0..<bins {
                let value = histograms[block * bins + bin], count = (value * Float(pixelCount)).rounded()
                guard count >= 0, count <= Float(pixelCount), (count * scale).bitPattern == value.bitPattern else {
                    return nil
                }
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
    private static func values(_ bytes: Slice<UnsafeRawBufferPointer>, length: Int) throws(RecognitionError) -> [Float]
    {
        guard bytes.count == 4 * length else { throw .damagedDescriptor("\(bytes.count / 4) values for \(length)") }
        return [Float](littleEndianBytes: bytes)
    }

    /// Histograms back from the counts form.
    private static func histograms(
        counts bytes: Slice<UnsafeRawBufferPointer>,
        parameters: DescriptorParameters
    ) throws(RecognitionError) -> [Float] {
        let bins = parameters.bins, bitmapBytes = (bins + 7) / 8,
            scales = parameters.blockPixelCounts.map { 1 / Float($0) }
        let twoByteCounts = storedCountBytes(parameters) == 2
        var histograms = [Float](repeating: 0, count: parameters.length)
        try walkCounts(bytes, parameters: parameters) { block, bitmap, counts in
            var at = counts
            for byte in 0..<bitmapBytes {
                var bits = bytes[bitmap + byte]
                while bits != 0 {
                    let count = 1 + Int(bytes[at]) + (twoByteCounts ? Int(bytes[at + 1]) << 8 : 0)
                    histograms[block * bins + byte * 8 + bits.trailingZeroBitCount] = Float(count) * scales[block]
                    bits &= bits - 1
                    at += twoByteCounts ? 2 : 1
                }
            }
        }
        return histograms
    }

    /// Bytes per count in the counts form of descriptors of `parameters`, or nil where it cannot hold them.
    static func storedCountBytes(_ parameters: DescriptorParameters) -> Int? {
        countBytes(largestBlock: parameters.blockPixelCounts.max() ?? 0)
    }

    /// Where each block of a stored descriptor begins, for a search of the stored form itself: the offset in
    /// `stored` of each block's bitmap, or nil for raw values. A damaged form is an error, as when read back;
    /// `checkingCounts` false checks only its layout (where the blocks lie, which bins they have), not that
    /// each block's counts add up to at most its pixels: enough for a search to stay within the form, and
    /// quick for forms that were checked when first stored.
    static func storedBlockOffsets(
        _ stored: UnsafeRawBufferPointer, parameters: DescriptorParameters,
        checkingCounts: Bool = true
    ) throws(RecognitionError) -> [Int]? {
        switch stored.first.flatMap(StoredForm.init(rawValue:)) {
        case .values?:
            _ = try values(stored.dropFirst(), length: parameters.length)
            return nil
        case .counts?:
            var offsets: [Int] = []
            offsets.reserveCapacity(parameters.blockCount)
            try walkCounts(stored.dropFirst(), parameters: parameters, checkingCounts: checkingCounts) { _, bitmap, _ in
                offsets.append(bitmap)
            }
            return offsets
        case nil:
            throw .damagedDescriptor(stored.isEmpty ? "it is empty" : "unknown stored form \(stored[0])")
        }
    }

    /// Walks the counts form, checking it as it goes (each block's counts against its pixels unless not
    /// `checkingCounts`): `block` gets each block's index and the offsets of its bitmap and of its first count.
    private static func walkCounts(
        _ bytes: Slice<UnsafeRawBufferPointer>, parameters: DescriptorParameters, checkingCounts: Bool = true,
        block visit: (_ block: Int, _ bitmap: Int, _ counts: Int) -> Void
    ) throws(RecognitionError) {
        let pixels = parameters.blockPixelCounts, bins = parameters.bins, bitmapBytes = (bins + 7) / 8
        guard let countBytes = Self.countBytes(largestBlock: pixels.max() ?? 0) else {
            throw .damagedDescriptor("counts stored for blocks of more than 65,536 pixels")
        }
        var offset = bytes.startIndex
        for (block, pixelCount) in pixels.enumerated() {
            guard offset + bitmapBytes <= bytes.endIndex else { throw .damagedDescriptor("it ends in block \(block)") }
            let bitmap = offset
            var nonzero = 0, byte = bitmap
            while byte + 8 <= bitmap + bitmapBytes {  // 8 bytes at a time: 10k faces' layouts checked in a few ms
                nonzero += bytes.base.loadUnaligned(fromByteOffset: byte, as: UInt64.self).nonzeroBitCount
                byte += 8
            }
            for byte in byte..<bitmap + bitmapBytes { nonzero += bytes[byte].nonzeroBitCount }
            let beyond = bytes[bitmap + bitmapBytes - 1] >> (bins - 8 * (bitmapBytes - 1))  // bits past the last bin
            guard bins % 8 == 0 || beyond == 0 else {
                throw .damagedDescriptor("block \(block) has bin \(bins + beyond.trailingZeroBitCount) of \(bins)")
            }
            offset += bitmapBytes
            guard offset + nonzero * countBytes <= bytes.endIndex else {
                throw .damagedDescriptor("it ends in block \(block)")
            }
            if checkingCounts {
                var total = nonzero
                for at in stride(from: offset, to: offset + nonzero * countBytes, by: countBytes) {
                    total += Int(bytes[at]) + (countBytes == 2 ? Int(bytes[at + 1]) << 8 : 0)
                }
                guard total <= pixelCount else {
                    throw .damagedDescriptor("block \(block) counts \(total) codes in \(pixelCount) pixels")
                }
            }
            visit(block, bitmap, offset)
            offset += nonzero * countBytes
        }
        guard offset == bytes.endIndex else {
            throw .damagedDescriptor("\(bytes.endIndex - offset) bytes after the last block")
        }
    }
}
