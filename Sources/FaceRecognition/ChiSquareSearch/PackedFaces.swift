/// Face descriptors unpacked for the dense search kernels, on the host: tiles of 16 face slots
/// (``ChiSquareNearest``'s lanes), within a tile block-major, then bin, then face, so the 16 faces of a tile
/// are read as one vector (see `Kernels/FaceRecognition/ChiSquareNearest.cl`), plus each face block's
/// total. Unpacked from ``StoredFaces`` slot by slot when a search first needs them (64 KB a face of 256
/// bins), empty slots zero. Not thread-safe: ``Gallery`` guards it.
struct PackedFaces {
    static let lanes = ChiSquareNearest.lanes
    let bins: Int
    let blocks: Int
    private(set) var tiles: [Float] = []  // tileCount × blocks × bins × lanes
    private(set) var sums: [Float] = []  // tileCount × blocks × lanes
    /// Slots the tiles cover (the last tile's spare lanes are zero).
    private(set) var slotCount = 0

    init(parameters: DescriptorParameters) {
        bins = parameters.bins
        blocks = parameters.blockCount
    }

    /// Floats of one tile's histograms, and of its block totals.
    var tileFloats: Int { blocks * bins * Self.lanes }
    var tileSumFloats: Int { blocks * Self.lanes }
    var tileCount: Int { sums.count / tileSumFloats }

    /// Covers `slotCount` slots, adding zeroed tiles at the end (a gallery's slots are reused, never dropped).
    mutating func cover(_ slotCount: Int) {
        let added = (slotCount + Self.lanes - 1) / Self.lanes - tileCount
        if added > 0 {
            tiles.append(contentsOf: repeatElement(0, count: added * tileFloats))
            sums.append(contentsOf: repeatElement(0, count: added * tileSumFloats))
        }
        self.slotCount = slotCount
    }

    /// Writes a slot's histograms (zeros for an empty slot) and their block totals.
    mutating func set(_ slot: Int, _ histograms: [Float]?) {
        let tile = slot / Self.lanes, lane = slot % Self.lanes, bins = bins, blocks = blocks
        let tileStart = tile * tileFloats, sumStart = tile * tileSumFloats, lanes = Self.lanes
        // Raw buffers: element-wise writes to the arrays pay an exclusivity check each.
        let empty = histograms == nil
        (histograms ?? []).withUnsafeBufferPointer { histograms in
            tiles.withUnsafeMutableBufferPointer { tiles in
                sums.withUnsafeMutableBufferPointer { sums in
                    for block in 0..<blocks {
                        var total: Float = 0
                        for bin in 0..<bins {
                            let value = empty ? 0 : histograms[block * bins + bin]
                            tiles[tileStart + (block * bins + bin) * lanes + lane] = value
                            total += value
                        }
                        sums[sumStart + block * lanes + lane] = total
                    }
                }
            }
        }
    }

    /// Tiles `range`'s histograms, and their block totals, as stored.
    func tiles(_ range: Range<Int>) -> ArraySlice<Float> {
        tiles[range.lowerBound * tileFloats..<range.upperBound * tileFloats]
    }
    func sums(_ range: Range<Int>) -> ArraySlice<Float> {
        sums[range.lowerBound * tileSumFloats..<range.upperBound * tileSumFloats]
    }

    /// Slots `range` as plain histogram images, one per slot (rows = blocks, columns = bins), empty slots zero.
    func plainHistograms(_ range: Range<Int>) -> [Float] {
        let length = blocks * bins
        var plain = [Float](repeating: 0, count: range.count * length)
        for slot in range {
            let tile = slot / Self.lanes, lane = slot % Self.lanes, row = slot - range.lowerBound
            for i in 0..<length { plain[row * length + i] = tiles[tile * tileFloats + i * Self.lanes + lane] }
        }
        return plain
    }
}
