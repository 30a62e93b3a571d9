import Foundation
import ImageKernels

/// Face descriptors of many faces, grouped by image, packed for the search kernels and kept on the
/// device between queries. Faces are appended and removed in place: a change re-sends only the tiles
/// it touched, and freed slots are reused.
///
/// Layout: tiles of 16 faces; within a tile block-major, then bin, then face, so the 16 faces of a tile
/// are read as one vector (see `Kernels/ChiSquareNearest.cl`). On the device the tiles live in
/// segments of at most 256 MiB: devices cap single allocations, and a growing gallery re-sends only
/// its last segment. Safe to use from any thread.
public final class Gallery: @unchecked Sendable {
    public let parameters: DescriptorParameters
    public let context: RenderContext

    private struct Entry {
        let face: FaceID
        let image: ImageID
    }

    private let lock = NSLock()
    private static let lanes = ChiSquareNearest.lanes
    private var tiles: [Float] = []          // tileCount × blocks × bins × lanes
    private var sums: [Float] = []           // tileCount × blocks × lanes
    private var slots: [Entry?] = []         // tileCount × lanes
    private var freeSlots: [Int] = []
    private var slotOfFace: [FaceID: Int] = [:]
    private var slotsOfImage: [ImageID: [Int]] = [:]
    private var segments: [Segment] = []
    private var dirtyTiles: Set<Int> = []

    /// A run of tiles on the device.
    private struct Segment {
        let firstTile: Int
        let capacity: Int
        let tiles: ResidentImage
        let sums: ResidentImage
        /// The segment's faces as plain histogram images, for the two-kernel path; made on demand.
        var plain: ResidentImage?
    }

    /// Largest device allocation a segment's tiles take.
    public let segmentBytes: Int

    /// An empty gallery for descriptors of `parameters`, on the context's device, in device segments of
    /// at most `segmentBytes` (at least one tile).
    public init(parameters: DescriptorParameters, context: RenderContext, segmentBytes: Int = 256 << 20) {
        self.parameters = parameters
        self.context = context
        self.segmentBytes = segmentBytes
    }

    /// Faces in the gallery.
    public var count: Int { lock.withLock { slotOfFace.count } }

    /// Device bytes per face slot: its histograms plus its block sums.
    public var bytesPerFace: Int { (parameters.length + parameters.blockCount) * 4 }

    private var tileFloats: Int { parameters.length * Self.lanes }
    private var tileSumFloats: Int { parameters.blockCount * Self.lanes }
    private var tilesPerSegment: Int { max(1, segmentBytes / (tileFloats * 4)) }

    /// Adds faces; each identifier must be new.
    public func append(_ faces: [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)]) throws(RecognitionError) {
        try locked { () throws(RecognitionError) in
            var seen: Set<FaceID> = []
            for entry in faces {
                try entry.descriptor.checkComparable(with: parameters)
                guard slotOfFace[entry.face] == nil, seen.insert(entry.face).inserted else {
                    throw .identifier("\(entry.face) is already in the gallery")
                }
            }
            for entry in faces { store(entry.descriptor, Entry(face: entry.face, image: entry.image)) }
        }
    }

    /// Makes room for `faceCount` faces in all, so that appending them in batches does not grow the
    /// packed arrays step by step.
    public func reserveCapacity(_ faceCount: Int) {
        lock.withLock {
            let tileCount = (faceCount + Self.lanes - 1) / Self.lanes
            tiles.reserveCapacity(tileCount * tileFloats)
            sums.reserveCapacity(tileCount * tileSumFloats)
            slots.reserveCapacity(tileCount * Self.lanes)
        }
    }

    /// Adds one face.
    public func append(_ descriptor: FaceDescriptor, face: FaceID, image: ImageID) throws(RecognitionError) {
        try append([(descriptor, face, image)])
    }

    /// Removes a face; its slot is reused by a later append.
    public func remove(face: FaceID) throws(RecognitionError) {
        try locked { () throws(RecognitionError) in
            guard let slot = slotOfFace[face] else { throw .identifier("\(face) is not in the gallery") }
            clear(slot)
        }
    }

    /// Removes every face of an image.
    public func remove(image: ImageID) {
        lock.withLock { (slotsOfImage[image] ?? []).forEach(clear) }
    }

    /// Runs `body` holding the lock, passing its typed error on.
    private func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Storage

    private func store(_ descriptor: FaceDescriptor, _ entry: Entry) {
        let slot = freeSlots.popLast() ?? addTile()
        let tile = slot / Self.lanes, lane = slot % Self.lanes, bins = parameters.bins, blocks = parameters.blockCount
        let tileStart = tile * tileFloats, sumStart = tile * tileSumFloats, lanes = Self.lanes
        // Raw buffers: element-wise writes to the class's arrays pay an exclusivity check each (10k faces
        // of 256 bins took 1.6 s to append that way).
        descriptor.histograms.withUnsafeBufferPointer { histograms in
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
        slotOfFace[entry.face] = slot
        slotsOfImage[entry.image, default: []].append(slot)
        changed(tile)
    }

    private func clear(_ slot: Int) {
        guard let entry = slots[slot] else { return }
        let tile = slot / Self.lanes, lane = slot % Self.lanes
        for i in 0..<parameters.length { tiles[tile * tileFloats + i * Self.lanes + lane] = 0 }
        for block in 0..<parameters.blockCount { sums[tile * tileSumFloats + block * Self.lanes + lane] = 0 }
        slots[slot] = nil
        slotOfFace[entry.face] = nil
        slotsOfImage[entry.image]?.removeAll { $0 == slot }
        if slotsOfImage[entry.image]?.isEmpty == true { slotsOfImage[entry.image] = nil }
        freeSlots.append(slot)
        changed(tile)
    }

    /// Adds an empty tile; returns its first slot and frees the others (lowest slot used first).
    private func addTile() -> Int {
        let first = slots.count
        tiles.append(contentsOf: repeatElement(0, count: tileFloats))
        sums.append(contentsOf: repeatElement(0, count: tileSumFloats))
        slots += [Entry?](repeating: nil, count: Self.lanes)
        freeSlots += (first + 1..<first + Self.lanes).reversed()
        return first
    }

    private func changed(_ tile: Int) {
        dirtyTiles.insert(tile)
        let segment = tile / tilesPerSegment
        if segment < segments.count { segments[segment].plain = nil }
    }

    /// Brings the device copy up to date: changed tiles are sent in place; a segment the gallery
    /// outgrew is made again, a quarter larger than needed, up to the segment size.
    private func synchronize() throws(RenderError) {
        let tileCount = slots.count / Self.lanes, perSegment = tilesPerSegment
        let segmentCount = (tileCount + perSegment - 1) / perSegment
        if segments.count > segmentCount { segments.removeLast(segments.count - segmentCount) }
        for index in 0..<segmentCount {
            let first = index * perSegment, used = min(perSegment, tileCount - first)
            if index < segments.count, segments[index].capacity >= used {
                for tile in dirtyTiles where tile >= first && tile < first + used {
                    try segments[index].tiles.write(tiles[tile * tileFloats..<(tile + 1) * tileFloats],
                                                    atByteOffset: (tile - first) * tileFloats * 4)
                    try segments[index].sums.write(sums[tile * tileSumFloats..<(tile + 1) * tileSumFloats],
                                                   atByteOffset: (tile - first) * tileSumFloats * 4)
                }
                continue
            }
            let capacity = min(perSegment, max(4, used + used / 4))
            let segment = try makeSegment(firstTile: first, used: used, capacity: capacity)
            if index < segments.count { segments[index] = segment } else { segments.append(segment) }
        }
        dirtyTiles = []
    }

    private func makeSegment(firstTile: Int, used: Int, capacity: Int) throws(RenderError) -> Segment {
        let bins = parameters.bins, blocks = parameters.blockCount, last = firstTile + used
        // Straight from the packed arrays, no copy first: a 10k-face gallery of 256 bins is 655 MB.
        return Segment(
            firstTile: firstTile, capacity: capacity,
            tiles: try context.makeResidentImage(ImageDescriptor(width: bins * Self.lanes, height: blocks, batch: capacity, elementType: .float32),
                                                 contents: tiles[firstTile * tileFloats..<last * tileFloats]),
            sums: try context.makeResidentImage(ImageDescriptor(width: Self.lanes, height: blocks, batch: capacity, elementType: .float32),
                                                contents: sums[firstTile * tileSumFloats..<last * tileSumFloats]))
    }

    /// Face slots of each segment, in order.
    private var segmentSlots: [Range<Int>] {
        segments.map { segment in
            let first = segment.firstTile * Self.lanes
            return first..<min(slots.count, first + tilesPerSegment * Self.lanes)
        }
    }

    // MARK: Search

    /// Compares a probe face with every face, reporting each face's distance and each image's to
    /// `collector` (see ``Matcher`` for what the distances mean).
    public func search<Collector: MatchCollector>(_ probe: FaceDescriptor, options: SearchOptions,
                                                  into collector: inout Collector) throws(RecognitionError) {
        try probe.checkComparable(with: parameters)
        try options.weights.check(against: parameters)
        let sparse = SparseProbe(probe, weights: options.weights)
        let distances: SlotDistances
        let slotCount: Int
        do {
            (distances, slotCount) = try locked { () throws(RenderError) in
                (try slotDistances(probe, sparse, options), slots.count)
            }
        } catch {
            throw .render(error)
        }
        report(distances, slotCount: slotCount, sparse: sparse, matcher: options.matcher, into: &collector)
    }

    /// What the search kernels give per face slot.
    private enum SlotDistances {
        /// The face's weighted distance.
        case faces([Float])
        /// d[slot][jj], the distance from active probe block jj to the same block of the face
        /// (restricted) or to its nearest block: needed to pool an image's faces block by block.
        case blocks([Float])
    }

    private func slotDistances(_ probe: FaceDescriptor, _ sparse: SparseProbe, _ options: SearchOptions) throws(RenderError) -> SlotDistances {
        guard sparse.count > 0, !slots.isEmpty else { return .blocks([]) }
        try synchronize()
        switch options.path {
        case .fused:
            let faceSums = !options.matcher.ranksImages
            let searches = zip(segments, segmentSlots).map { segment, slots in
                Image(applying: ChiSquareNearest(probe: sparse, full: options.matcher.comparesAllBlocks, faceSums: faceSums,
                                                 form: options.form, blocks: parameters.blockCount, bins: parameters.bins,
                                                 slots: slots.count),
                      to: [segment.tiles.image, segment.sums.image])
            }
            let values = try context.render(searches).flatMap(\.floatValues)
            return faceSums ? .faces(values) : .blocks(values)
        case .twoKernel:
            var distances: [Float] = []
            for index in segments.indices {
                distances += try twoKernelDistances(probe, sparse, options, segment: index)
            }
            return .blocks(distances)
        }
    }

    /// The reference design: per-bin terms (``HistogramDifference``) of histogram images, sums per
    /// block (``BlockSum``), minima on the host. For all-block matchers, each probe block is replicated
    /// into a whole histogram image and compared with every face's histogram image.
    private func twoKernelDistances(_ probe: FaceDescriptor, _ sparse: SparseProbe, _ options: SearchOptions,
                                    segment: Int) throws(RenderError) -> [Float] {
        let slotCount = segmentSlots[segment].count, blocks = parameters.blockCount, bins = parameters.bins
        let gallery = try plainHistograms(segment).image
        var distances = [Float](repeating: 0, count: slotCount * sparse.count)
        if !options.matcher.comparesAllBlocks {
            let expected = Image(try PixelBuffer(width: bins, height: blocks, values: probe.histograms))
            let sums = try context.render(gallery.chiSquareTerms(expected: expected, form: options.form).blockSums()).floatValues
            for slot in 0..<slotCount {
                for (jj, block) in sparse.blocks.enumerated() { distances[slot * sparse.count + jj] = sums[slot * blocks + Int(block)] }
            }
            return distances
        }
        for (jj, block) in sparse.blocks.enumerated() {
            let replicated = [[Float]](repeating: Array(probe.block(Int(block))), count: blocks).flatMap { $0 }
            let expected = Image(try PixelBuffer(width: bins, height: blocks, values: replicated))
            let sums = try context.render(gallery.chiSquareTerms(expected: expected, form: options.form).blockSums()).floatValues
            for slot in 0..<slotCount {
                distances[slot * sparse.count + jj] = sums[slot * blocks..<(slot + 1) * blocks].min() ?? .infinity
            }
        }
        return distances
    }

    /// A segment's faces as one histogram image per face slot (rows = blocks, columns = bins).
    private func plainHistograms(_ segment: Int) throws(RenderError) -> ResidentImage {
        if let plain = segments[segment].plain { return plain }
        let length = parameters.length, slotRange = segmentSlots[segment]
        var plain = [Float](repeating: 0, count: slotRange.count * length)
        for slot in slotRange where slots[slot] != nil {
            let tile = slot / Self.lanes, lane = slot % Self.lanes, row = slot - slotRange.lowerBound
            for i in 0..<length { plain[row * length + i] = tiles[tile * tileFloats + i * Self.lanes + lane] }
        }
        let image = try context.makeResidentImage(
            try PixelBuffer(width: parameters.bins, height: parameters.blockCount, batch: slotRange.count, values: plain))
        segments[segment].plain = image
        return image
    }

    /// Weighs block distances into face and image distances and hands them to the collector.
    private func report<Collector: MatchCollector>(_ distances: SlotDistances, slotCount: Int, sparse: SparseProbe,
                                                   matcher: Matcher, into collector: inout Collector) {
        let (entries, images) = lock.withLock { (slots, slotsOfImage) }
        let count = sparse.count, live = min(slotCount, entries.count)
        var faceDistance = [Float](repeating: 0, count: slotCount)
        switch distances {
        case .faces(let values):
            for slot in 0..<min(live, values.count) { faceDistance[slot] = values[slot] }
        case .blocks(let d) where count > 0:
            for slot in 0..<live where entries[slot] != nil {
                var total: Float = 0
                for jj in 0..<count { total += sparse.weights[jj] * d[slot * count + jj] }
                faceDistance[slot] = total
            }
        case .blocks:
            break
        }
        for slot in 0..<live {
            if let entry = entries[slot] { collector.collect(FaceMatch(face: entry.face, image: entry.image, distance: faceDistance[slot])) }
        }
        for (image, imageSlots) in images {
            var best = -1
            for slot in imageSlots where slot < live && (best < 0 || (faceDistance[slot], slot) < (faceDistance[best], best)) {
                best = slot
            }
            guard best >= 0, let bestEntry = entries[best] else { continue }
            var distance = faceDistance[best]
            if matcher.ranksImages, case .blocks(let d) = distances {
                distance = 0
                for jj in 0..<count {
                    var nearest = Float.infinity
                    for slot in imageSlots where slot < live { nearest = min(nearest, d[slot * count + jj]) }
                    distance += sparse.weights[jj] * nearest
                }
            }
            collector.collect(ImageMatch(image: image, distance: distance, bestFace: bestEntry.face))
        }
    }
}
