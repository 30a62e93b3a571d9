import ImageKernels

/// The device copy of a gallery's packed faces: runs of tiles in segments of at most `segmentBytes`
/// (devices cap single allocations, and a growing gallery re-sends only its last segment), brought up to
/// date by re-sending changed tiles in place. Not thread-safe: ``Gallery`` guards it.
struct ResidentTiles {
    /// A run of tiles on the device.
    struct Segment {
        let firstTile: Int
        let capacity: Int
        let tiles: ResidentImage
        let sums: ResidentImage
        /// The segment's faces as plain histogram images, for the two-kernel path; made on demand.
        var plain: ResidentImage?
    }

    let context: RenderContext
    let segmentBytes: Int
    private(set) var segments: [Segment] = []
    private var dirtyTiles: Set<Int> = []

    init(context: RenderContext, segmentBytes: Int) {
        self.context = context
        self.segmentBytes = segmentBytes
    }

    /// Tiles per segment, at least one.
    func tilesPerSegment(_ faces: PackedFaces) -> Int { max(1, segmentBytes / (faces.tileFloats * 4)) }

    /// Notes that a tile changed on the host.
    mutating func changed(_ tile: Int, of faces: PackedFaces) {
        dirtyTiles.insert(tile)
        let segment = tile / tilesPerSegment(faces)
        if segment < segments.count { segments[segment].plain = nil }
    }

    /// Brings the device copy up to date: changed tiles are sent in place; a segment the gallery
    /// outgrew is made again, a quarter larger than needed, up to the segment size.
    mutating func synchronize(with faces: PackedFaces) throws(RenderError) {
        let tileCount = faces.tileCount, perSegment = tilesPerSegment(faces)
        let segmentCount = (tileCount + perSegment - 1) / perSegment
        if segments.count > segmentCount { segments.removeLast(segments.count - segmentCount) }
        for index in 0..<segmentCount {
            let first = index * perSegment, used = min(perSegment, tileCount - first)
            if index < segments.count, segments[index].capacity >= used {
                for tile in dirtyTiles where tile >= first && tile < first + used {
                    try segments[index].tiles.write(
                        faces.tiles(tile..<tile + 1), atByteOffset: (tile - first) * faces.tileFloats * 4)
                    try segments[index].sums.write(
                        faces.sums(tile..<tile + 1), atByteOffset: (tile - first) * faces.tileSumFloats * 4)
                }
                continue
            }
            let capacity = min(perSegment, max(4, used + used / 4))
            let lanes = PackedFaces.lanes
            // Straight from the packed arrays, no copy first: a 10k-face gallery of 256 bins is 655 MB.
            let segment = Segment(
                firstTile: first, capacity: capacity,
                tiles: try context.makeResidentImage(
                    ImageDescriptor(
                        width: faces.bins * lanes, height: faces.blocks, batch: capacity,
                        elementType: .float32),
                    contents: faces.tiles(first..<first + used)),
                sums: try context.makeResidentImage(
                    ImageDescriptor(
                        width: lanes, height: faces.blocks, batch: capacity,
                        elementType: .float32),
                    contents: faces.sums(first..<first + used)))
            if index < segments.count { segments[index] = segment } else { segments.append(segment) }
        }
        dirtyTiles = []
    }

    /// Face slots of each segment, in order.
    func slotRanges(_ faces: PackedFaces) -> [Range<Int>] {
        let perSegment = tilesPerSegment(faces)
        return segments.map { segment in
            let first = segment.firstTile * PackedFaces.lanes
            return first..<min(faces.slotCount, first + perSegment * PackedFaces.lanes)
        }
    }

    /// A segment's faces as one histogram image per face slot, made once until the segment changes.
    mutating func plainHistograms(_ segment: Int, of faces: PackedFaces) throws(RenderError) -> ResidentImage {
        if let plain = segments[segment].plain { return plain }
        let range = slotRanges(faces)[segment]
        let image = try context.makeResidentImage(
            try PixelBuffer(
                width: faces.bins, height: faces.blocks, batch: range.count,
                values: faces.plainHistograms(range)))
        segments[segment].plain = image
        return image
    }
}
