import Foundation
import ImageKernels

/// A gallery's faces in their stored form (``FaceDescriptor/encoded()``), a slot each, back to back in one
/// block of host memory: at about 6 KB a face, a new process takes 10k faces in as they come from the
/// database, and the restricted matchers search them as they are (``ChiSquareCounts``), on the CPU device
/// in place; the dense tiles the all-block matchers need are unpacked from them on demand
/// (``PackedFaces``). Slots freed by removals are reused; the bytes of removed faces are dropped once they
/// outweigh the rest. A gallery file (``StoredFacesFile``) is read in place, mapped, until a face is added.
/// Not thread-safe: ``Gallery`` guards it.
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
    /// The stored forms, back to back in its first ``byteCount`` bytes among dead ones (removed faces', a
    /// mapped file's header), with at least ``spareBytes`` more (``ChiSquareCounts`` reads bitmaps 8 bytes
    /// at a time). Replaced, never moved, when it runs out, is compacted, or is a file's and not writable.
    private(set) var memory = HostMemory(byteCount: spareBytes)
    private(set) var byteCount = 0
    private(set) var slots: [Entry?] = []
    /// Per slot and block, the offset in ``memory`` of the block's bitmap; -1 for an empty slot or raw values.
    private(set) var blockOffsets: [Int32] = []
    /// Live slots whose faces are raw values.
    private(set) var rawValueSlots = 0
    private var freeSlots: [Int] = []
    /// Dead bytes before ``byteCount``: removed faces', a mapped file's header.
    private var deadBytes = 0

    /// The most bytes the 32-bit offsets the kernel reads can address.
    static let maximumBytes = Int(Int32.max)
    static let spareBytes = 8

    init(parameters: DescriptorParameters) {
        self.parameters = parameters
    }

    /// Faces whose stored forms lie in `memory` at `forms`' ranges, in order and apart, before its last
    /// ``spareBytes``, read there as they are. Each form's layout is checked, so that a search stays within
    /// it; not its counts, which were checked when first stored.
    init(
        parameters: DescriptorParameters, memory: HostMemory,
        forms: [(face: FaceID, image: ImageID, range: Range<Int>)]
    ) throws(RecognitionError) {
        guard memory.byteCount >= Self.spareBytes, memory.byteCount - Self.spareBytes <= Self.maximumBytes else {
            throw .invalidParameters(
                "a gallery holds at most \(Self.maximumBytes) bytes of stored descriptors, not \(memory.byteCount)")
        }
        self.parameters = parameters
        self.memory = memory
        byteCount = memory.byteCount - Self.spareBytes
        deadBytes = byteCount - forms.reduce(0) { $0 + $1.range.count }
        slots.reserveCapacity(forms.count)
        blockOffsets.reserveCapacity(forms.count * parameters.blockCount)
        var formsEnd = 0
        for (face, image, range) in forms {
            guard range.lowerBound >= formsEnd, range.upperBound <= byteCount else {
                throw .damagedDescriptor("\(face): bytes \(range), after \(formsEnd) of \(byteCount)")
            }
            formsEnd = range.upperBound
            let offsets: [Int]?
            do {
                offsets = try FaceDescriptor.storedBlockOffsets(
                    UnsafeRawBufferPointer(rebasing: memory.bytes[range]), parameters: parameters,
                    checkingCounts: false)
            } catch .damagedDescriptor(let reason) {
                throw .damagedDescriptor("\(face): \(reason)")
            }
            let slot = addSlot()
            slots[slot] = Entry(face: face, image: image, range: range, counts: offsets != nil)
            setOffsets(slot, offsets.map { $0.map { Int32(range.lowerBound + $0) } })
            if offsets == nil { rawValueSlots += 1 }
        }
    }

    mutating func reserveCapacity(faces: Int, bytesPerFace: Int) {
        reserveBytes(faces * bytesPerFace)
        slots.reserveCapacity(faces)
        blockOffsets.reserveCapacity(faces * parameters.blockCount)
    }

    /// Stores a face from its stored form, checked as it would be read back; returns its slot.
    mutating func store(_ stored: UnsafeRawBufferPointer, face: FaceID, image: ImageID) throws(RecognitionError) -> Int
    {
        let offsets = try FaceDescriptor.storedBlockOffsets(stored, parameters: parameters)
        guard byteCount + stored.count <= Self.maximumBytes else {
            throw .invalidParameters("a gallery holds at most \(Self.maximumBytes) bytes of stored descriptors")
        }
        if !memory.isWritable || byteCount + stored.count + Self.spareBytes > memory.byteCount {
            moveBytes(capacity: (byteCount - deadBytes + stored.count) * 5 / 4)
        }
        let start = byteCount
        if let base = stored.baseAddress {
            (memory.baseAddress + start).copyMemory(from: base, byteCount: stored.count)
        }
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
        deadBytes += entry.range.count
        if deadBytes > byteCount / 2 { compact() }
        return entry
    }

    /// A slot's histograms, or nil for an empty slot.
    func histograms(_ slot: Int) throws(RecognitionError) -> [Float]? {
        guard let entry = slots[slot] else { return nil }
        let data = Data(
            UnsafeRawBufferPointer(start: memory.baseAddress + entry.range.lowerBound, count: entry.range.count))
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

    /// Makes room for `capacity` bytes of stored forms in writable memory, unless there is.
    private mutating func reserveBytes(_ capacity: Int) {
        guard !memory.isWritable || capacity + Self.spareBytes > memory.byteCount else { return }
        moveBytes(capacity: capacity)
    }

    /// Drops dead bytes (removed faces', a file's header), moving the live forms down into new memory.
    private mutating func compact() {
        moveBytes(capacity: byteCount - deadBytes)
    }

    /// Moves the live forms, back to back and without dead bytes, into new writable memory of room for
    /// `capacity` bytes of forms (at least theirs).
    private mutating func moveBytes(capacity: Int) {
        let moved = HostMemory(byteCount: max(capacity, byteCount - deadBytes) + Self.spareBytes, populated: true)
        var movedCount = 0
        for slot in slots.indices {
            guard let entry = slots[slot] else { continue }
            let shift = Int32(movedCount - entry.range.lowerBound)
            (moved.baseAddress + movedCount).copyMemory(
                from: memory.baseAddress + entry.range.lowerBound, byteCount: entry.range.count)
            movedCount += entry.range.count
            slots[slot]?.range = movedCount - entry.range.count..<movedCount
            let blocks = parameters.blockCount
            if entry.counts { for block in 0..<blocks { blockOffsets[slot * blocks + block] += shift } }
        }
        memory = moved
        byteCount = movedCount
        deadBytes = 0
    }
}
