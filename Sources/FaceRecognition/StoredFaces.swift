import Foundation

/// A gallery's faces in their stored form (``FaceDescriptor/encoded()``), a slot each, back to back in one
/// byte array: at about 6 KB a face, a new process takes 10k faces in as they come from the database, and
/// the restricted matchers search them as they are (``ChiSquareCounts``); the dense tiles the all-block
/// matchers need are unpacked from them on demand (``PackedFaces``). Slots freed by removals are reused;
/// the bytes of removed faces are dropped once they outweigh the rest. Not thread-safe: ``Gallery`` guards it.
struct StoredFaces {
    /// Who occupies a slot, and where its stored form lies in ``bytes``.
    struct Entry {
        let face: FaceID
        let image: ImageID
        var range: Range<Int>
        /// Whether it is in the counts form (else raw values, which only the dense tiles can search).
        let counts: Bool
    }

    let parameters: DescriptorParameters
    private(set) var bytes: [UInt8] = []
    private(set) var slots: [Entry?] = []
    /// Per slot and block, the offset in ``bytes`` of the block's bitmap; -1 for an empty slot or raw values.
    private(set) var blockOffsets: [Int32] = []
    /// Live slots whose faces are raw values.
    private(set) var rawValueSlots = 0
    private var freeSlots: [Int] = []
    /// Bytes of removed faces still in ``bytes``.
    private var removedBytes = 0
    /// Compactions so far: between two, faces are only added at the end of ``bytes``.
    private(set) var compactions = 0

    /// The most bytes the 32-bit offsets the kernel reads can address.
    static let maximumBytes = Int(Int32.max)

    init(parameters: DescriptorParameters) {
        self.parameters = parameters
    }

    mutating func reserveCapacity(faces: Int, bytesPerFace: Int) {
        bytes.reserveCapacity(faces * bytesPerFace)
        slots.reserveCapacity(faces)
        blockOffsets.reserveCapacity(faces * parameters.blockCount)
    }

    /// Stores a face from its stored form, checked as it would be read back; returns its slot.
    mutating func store(_ stored: UnsafeRawBufferPointer, face: FaceID, image: ImageID) throws(RecognitionError) -> Int {
        let offsets = try FaceDescriptor.storedBlockOffsets(stored, parameters: parameters)
        guard bytes.count + stored.count <= Self.maximumBytes else {
            throw .invalidParameters("a gallery holds at most \(Self.maximumBytes) bytes of stored descriptors")
        }
        let start = bytes.count
        bytes.append(contentsOf: stored)
        let slot = freeSlots.popLast() ?? addSlot()
        slots[slot] = Entry(face: face, image: image, range: start..<bytes.count, counts: offsets != nil)
        setOffsets(slot, offsets.map { $0.map { Int32(start + $0) } })
        if offsets == nil { rawValueSlots += 1 }
        return slot
    }

    /// Empties a slot and frees it; returns who was there.
    mutating func clear(_ slot: Int) -> Entry? {
        guard let entry = slots[slot] else { return nil }
        slots[slot] = nil
        setOffsets(slot, nil)
        if !entry.counts { rawValueSlots -= 1 }
        freeSlots.append(slot)
        removedBytes += entry.range.count
        if removedBytes > bytes.count / 2 { compact() }
        return entry
    }

    /// A slot's histograms, or nil for an empty slot.
    func histograms(_ slot: Int) throws(RecognitionError) -> [Float]? {
        guard let entry = slots[slot] else { return nil }
        let data = Data(bytes[entry.range])
        return try FaceDescriptor(parameters: parameters, encoded: data).histograms
    }

    private mutating func addSlot() -> Int {
        slots.append(nil)
        blockOffsets += repeatElement(-1, count: parameters.blockCount)
        return slots.count - 1
    }

    private mutating func setOffsets(_ slot: Int, _ offsets: [Int32]?) {
        let blocks = parameters.blockCount
        for block in 0..<blocks { blockOffsets[slot * blocks + block] = offsets?[block] ?? -1 }
    }

    /// Drops removed faces' bytes, moving the others down.
    private mutating func compact() {
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count - removedBytes)
        for slot in slots.indices {
            guard let entry = slots[slot] else { continue }
            let shift = Int32(kept.count - entry.range.lowerBound)
            kept += bytes[entry.range]
            slots[slot]?.range = kept.count - entry.range.count..<kept.count
            let blocks = parameters.blockCount
            if entry.counts { for block in 0..<blocks { blockOffsets[slot * blocks + block] += shift } }
        }
        bytes = kept
        removedBytes = 0
        compactions += 1
    }
}
