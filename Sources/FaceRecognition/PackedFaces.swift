/// Face descriptors packed for the search kernels, on the host: tiles of 16 faces (``ChiSquareNearest``'s
/// lanes), within a tile block-major, then bin, then face, so the 16 faces of a tile are read as one
/// vector (see `Kernels/FaceRecognition/ChiSquareNearest.cl`), plus each face block's total. Slots freed
/// by removals are reused, lowest first. Not thread-safe: ``Gallery`` guards it.
struct PackedFaces {
    /// Who occupies a slot.
    struct Entry {
        let face: FaceID
        let image: ImageID
    }

    static let lanes = ChiSquareNearest.lanes
    let bins: Int
    let blocks: Int
    private(set) var tiles: [Float] = []          // tileCount × blocks × bins × lanes
    private(set) var sums: [Float] = []           // tileCount × blocks × lanes
    private(set) var slots: [Entry?] = []         // tileCount × lanes
    private var freeSlots: [Int] = []

    init(parameters: DescriptorParameters) {
        bins = parameters.bins
        blocks = parameters.blockCount
    }

    /// Floats of one tile's histograms, and of its block totals.
    var tileFloats: Int { blocks * bins * Self.lanes }
    var tileSumFloats: Int { blocks * Self.lanes }
    var tileCount: Int { slots.count / Self.lanes }

    mutating func reserveCapacity(faces: Int) {
        let tileCount = (faces + Self.lanes - 1) / Self.lanes
        tiles.reserveCapacity(tileCount * tileFloats)
        sums.reserveCapacity(tileCount * tileSumFloats)
        slots.reserveCapacity(tileCount * Self.lanes)
    }

    /// Stores a descriptor in a free slot (adding a tile when none is free); returns the slot.
    mutating func store(_ histograms: [Float], _ entry: Entry) -> Int {
        let slot = freeSlots.popLast() ?? addTile()
        let tile = slot / Self.lanes, lane = slot % Self.lanes, bins = bins, blocks = blocks
        let tileStart = tile * tileFloats, sumStart = tile * tileSumFloats, lanes = Self.lanes
        // Raw buffers: element-wise writes to the arrays pay an exclusivity check each (10k faces of
        // 256 bins took 1.6 s to append that way).
        histograms.withUnsafeBufferPointer { histograms in
            tiles.withUnsafeMutableBufferPointer { tiles in
                sums.withUnsafeMutableBufferPointer { sums in
                    for block in 0..<blocks {
                        var total: Float = 0
                        for bin in 0..<bins {
                            let value = histograms[block * bins + bin]
                            tiles[tileStart + (block * bins + bin) * lanes + lane] = value
                            total += value
                        }
                        sums[sumStart + block * lanes + lane] = total
                    }
                }
            }
        }
        slots[slot] = entry
        return slot
    }

    /// Zeroes a slot and frees it; returns who was there.
    mutating func clear(_ slot: Int) -> Entry? {
        guard let entry = slots[slot] else { return nil }
        let tile = slot / Self.lanes, lane = slot % Self.lanes
        for i in 0..<blocks * bins { tiles[tile * tileFloats + i * Self.lanes + lane] = 0 }
        for block in 0..<blocks { sums[tile * tileSumFloats + block * Self.lanes + lane] = 0 }
        slots[slot] = nil
        freeSlots.append(slot)
        return entry
    }

    /// Adds an empty tile; returns its first slot and frees the others (lowest slot used first).
    private mutating func addTile() -> Int {
        let first = slots.count
        tiles.append(contentsOf: repeatElement(0, count: tileFloats))
        sums.append(contentsOf: repeatElement(0, count: tileSumFloats))
        slots += [Entry?](repeating: nil, count: Self.lanes)
        freeSlots += (first + 1..<first + Self.lanes).reversed()
        return first
    }

    /// Tiles `range`'s histograms, and their block totals, as stored.
    func tiles(_ range: Range<Int>) -> ArraySlice<Float> { tiles[range.lowerBound * tileFloats..<range.upperBound * tileFloats] }
    func sums(_ range: Range<Int>) -> ArraySlice<Float> { sums[range.lowerBound * tileSumFloats..<range.upperBound * tileSumFloats] }

    /// Slots `range` as plain histogram images, one per slot (rows = blocks, columns = bins), empty slots zero.
    func plainHistograms(_ range: Range<Int>) -> [Float] {
        let length = blocks * bins
        var plain = [Float](repeating: 0, count: range.count * length)
        for slot in range where slots[slot] != nil {
            let tile = slot / Self.lanes, lane = slot % Self.lanes, row = slot - range.lowerBound
            for i in 0..<length { plain[row * length + i] = tiles[tile * tileFloats + i * Self.lanes + lane] }
        }
        return plain
    }
}
