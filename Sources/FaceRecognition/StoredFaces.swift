import Foundation
import ImageKernels

/// A gallery's faces in their stored form (``FaceDescriptor/encoded()``), a slot each, back to back in one
/// block of host memory: at about 6 KB a face, a new process takes 10k faces in as they come from the
/// database, and the restricted matchers search them as they are (``ChiSquareCounts``), on the CPU device
/// in place; the dense tiles the all-block matchers need are unpacked from them on demand
/// (``PackedFaces``). Slots freed by removals are reused; the bytes of removed faces are dropped once they
/// outweigh the rest. Not thread-safe: ``Gallery`` guards it.
struct StoredFaces {
    /// Who occupies a slot, and where its stored form lies in ``memory``.
    struct Entry {
        let face: FaceID
        let image: ImageID
        var range: Range<Int>
        /// Whether it is in the counts form (else raw values, which only the dense tiles can search).
        let counts: Bool
    }

    let parameters: DescriptorParameters
    /// The stored forms, back to back in its first ``byteCount`` bytes, with at least ``spareBytes`` more
    /// (``ChiSquareCounts`` reads bitmaps 8 bytes at a time). Replaced, never moved, when it runs out or
    /// is compacted.
    private(set) var memory = HostMemory(byteCount: spareBytes)
    private(set) var byteCount = 0
    private(set) var slots: [Entry?] = []
    /// Per slot and block, the offset in ``memory`` of the block's bitmap; -1 for an empty slot or raw values.
    private(set) var blockOffsets: [Int32] = []
    /// Live slots whose faces are raw values.
    private(set) var rawValueSlots = 0
    private var freeSlots: [Int] = []
    /// Bytes of removed faces still in ``memory``.
    private var removedBytes = 0

    /// The most bytes the 32-bit offsets the kernel reads can address.
    static let maximumBytes = Int(Int32.max)
    static let spareBytes = 8

    init(parameters: DescriptorParameters) {
        self.parameters = parameters
    }

    mutating func reserveCapacity(faces: Int, bytesPerFace: Int) {
        reserveBytes(faces * bytesPerFace)
        slots.reserveCapacity(faces)
        blockOffsets.reserveCapacity(faces * parameters.blockCount)
    }

    /// Stores a face from its stored form, checked as it would be read back; returns its slot.
    mutating func store(_ stored: UnsafeRawBufferPointer, face: FaceID, image: ImageID) throws(RecognitionError) -> Int {
        let offsets = try FaceDescriptor.storedBlockOffsets(stored, parameters: parameters)
        guard byteCount + stored.count <= Self.maximumBytes else {
            throw .invalidParameters("a gallery holds at most \(Self.maximumBytes) bytes of stored descriptors")
        }
        if byteCount + stored.count + Self.spareBytes > memory.byteCount {
            reserveBytes((byteCount + stored.count) * 5 / 4)
        }
        let start = byteCount
        if let base = stored.baseAddress { (memory.baseAddress + start).copyMemory(from: base, byteCount: stored.count) }
        byteCount += stored.count
        let slot = freeSlots.popLast() ?? addSlot()
        slots[slot] = Entry(face: face, image: image, range: start..<byteCount, counts: offsets != nil)
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
        if removedBytes > byteCount / 2 { compact() }
        return entry
    }

    /// A slot's histograms, or nil for an empty slot.
    func histograms(_ slot: Int) throws(RecognitionError) -> [Float]? {
        guard let entry = slots[slot] else { return nil }
        let data = Data(UnsafeRawBufferPointer(start: memory.baseAddress + entry.range.lowerBound, count: entry.range.count))
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

    /// Moves the stored forms to new memory of room for `capacity` bytes of them, unless there is room.
    private mutating func reserveBytes(_ capacity: Int) {
        guard capacity + Self.spareBytes > memory.byteCount else { return }
        let grown = HostMemory(byteCount: capacity + Self.spareBytes, populated: true)
        grown.baseAddress.copyMemory(from: memory.baseAddress, byteCount: byteCount)
        memory = grown
    }

    /// Drops removed faces' bytes, moving the others down into new memory.
    private mutating func compact() {
        let kept = HostMemory(byteCount: byteCount - removedBytes + Self.spareBytes, populated: true)
        var keptCount = 0
        for slot in slots.indices {
            guard let entry = slots[slot] else { continue }
            let shift = Int32(keptCount - entry.range.lowerBound)
            (kept.baseAddress + keptCount).copyMemory(from: memory.baseAddress + entry.range.lowerBound, byteCount: entry.range.count)
            keptCount += entry.range.count
            slots[slot]?.range = keptCount - entry.range.count..<keptCount
            let blocks = parameters.blockCount
            if entry.counts { for block in 0..<blocks { blockOffsets[slot * blocks + block] += shift } }
        }
        memory = kept
        byteCount = keptCount
        removedBytes = 0
    }
}
