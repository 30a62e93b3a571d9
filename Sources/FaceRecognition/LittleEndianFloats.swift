import Foundation

/// Float32 values as little-endian bytes: how descriptors and embeddings are stored, on any machine.
extension Array where Element == Float {
    /// The values' bytes, little-endian.
    public var littleEndianBytes: Data {
        var data = Data(capacity: count * 4)
        for value in self { Swift.withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// Values back from their little-endian bytes; a trailing part of a value is ignored.
    public init<Bytes: Collection<UInt8>>(littleEndianBytes bytes: Bytes) {
        let count = bytes.count / 4
        let copied: [Float]? = bytes.withContiguousStorageIfAvailable { stored in
            [Float](unsafeUninitializedCapacity: count) { values, initialized in
                UnsafeMutableRawBufferPointer(values).copyMemory(
                    from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: stored.prefix(count * 4))))
                initialized = count
            }
        }
        // An array's storage is contiguous, so its copy goes the first way.
        self = copied ?? [Float](littleEndianBytes: [UInt8](bytes))
        if UInt32(1).littleEndian != 1 { self = map { Float(bitPattern: UInt32(littleEndian: $0.bitPattern)) } }
    }
}
