import ImageKernels

/// Matcher dispatch: a probe against every face of a gallery, through the fused kernel or the reference
/// design's two filters, weighed into face and image distances for a collector.
extension Gallery {
    /// Compares a probe face with every face, reporting each face's distance and each image's to
    /// `collector` (see ``Matcher`` for what the distances mean).
    public func search<Collector: MatchCollector>(
        _ probe: FaceDescriptor, options: SearchOptions,
        into collector: inout Collector
    ) throws(RecognitionError) {
        guard options.matcher != .embedding else {
            throw .invalidParameters("the embedding matcher searches an EmbeddingGallery, not LBP descriptors")
        }
        guard (options.radius ?? 0) >= 0 else { throw .invalidParameters("a neighbourhood radius cannot be negative") }
        try probe.checkComparable(with: parameters)
        try options.weights.check(against: parameters)
        let sparse = SparseProbe(probe, weights: options.weights)
        let (distances, slotCount) = try locked { () throws(RecognitionError) in
            (try slotDistances(probe, sparse, options), stored.slots.count)
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

    /// The distances from the restricted matchers' fused kernel on the stored faces as they are, when all
    /// are counts; else from the dense tiles, by the chosen path.
    private func slotDistances(_ probe: FaceDescriptor, _ sparse: SparseProbe, _ options: SearchOptions)
        throws(RecognitionError) -> SlotDistances
    {
        guard sparse.count > 0, !stored.slots.isEmpty else { return .blocks([]) }
        let faceSums = !options.matcher.ranksImages
        if options.path == .fused, !options.matcher.comparesAllBlocks, stored.rawValueSlots == 0 {
            do {
                let (bytes, offsets) = try counts.synchronize(with: stored)
                let search = ChiSquareCounts(
                    probe: probe, sparse, faceSums: faceSums, form: options.form, slots: stored.slots.count)
                let values = try context.render(Image(applying: search, to: [bytes, offsets])).floatValues
                return faceSums ? .faces(values) : .blocks(values)
            } catch {
                throw .render(error)
            }
        }
        try synchronizeDenseTiles()
        do {
            switch options.path {
            case .fused:
                let searches = zip(resident.segments, resident.slotRanges(packed)).map { segment, slots in
                    Image(
                        applying: ChiSquareNearest(
                            probe: sparse, full: options.matcher.comparesAllBlocks,
                            neighbourhood: options.neighbourhood(columns: parameters.gridColumns),
                            faceSums: faceSums,
                            form: options.form, blocks: parameters.blockCount, bins: parameters.bins,
                            slots: slots.count),
                        to: [segment.tiles.image, segment.sums.image])
                }
                let values = try context.render(searches).flatMap(\.floatValues)
                return faceSums ? .faces(values) : .blocks(values)
            case .twoKernel:
                var distances: [Float] = []
                for index in resident.segments.indices {
                    distances += try twoKernelDistances(probe, sparse, options, segment: index)
                }
                return .blocks(distances)
            }
        } catch {
            throw .render(error)
        }
    }

    /// The reference design: per-bin terms (``HistogramDifference``) of histogram images, sums per
    /// block (``BlockSum``), minima on the host. For all-block matchers, each probe block is replicated
    /// into a whole histogram image and compared with every face's histogram image.
    private func twoKernelDistances(
        _ probe: FaceDescriptor, _ sparse: SparseProbe, _ options: SearchOptions,
        segment: Int
    ) throws(RenderError) -> [Float] {
        let slotCount = resident.slotRanges(packed)[segment].count, blocks = parameters.blockCount,
            bins = parameters.bins
        let gallery = try resident.plainHistograms(segment, of: packed).image
        var distances = [Float](repeating: 0, count: slotCount * sparse.count)
        if !options.matcher.comparesAllBlocks {
            let expected = Image(try PixelBuffer(width: bins, height: blocks, values: probe.histograms))
            let sums = try context.render(gallery.chiSquareTerms(expected: expected, form: options.form).blockSums())
                .floatValues
            for slot in 0..<slotCount {
                for (jj, block) in sparse.blocks.enumerated() {
                    distances[slot * sparse.count + jj] = sums[slot * blocks + Int(block)]
                }
            }
            return distances
        }
        for (jj, block) in sparse.blocks.enumerated() {
            let replicated = [[Float]](repeating: Array(probe.block(Int(block))), count: blocks).flatMap { $0 }
            let expected = Image(try PixelBuffer(width: bins, height: blocks, values: replicated))
            let sums = try context.render(gallery.chiSquareTerms(expected: expected, form: options.form).blockSums())
                .floatValues
            for slot in 0..<slotCount {
                distances[slot * sparse.count + jj] =
                    (0..<blocks).filter { options.compares(Int(block), with: $0, columns: parameters.gridColumns) }
                    .map { sums[slot * blocks + $0] }.min() ?? .infinity
            }
        }
        return distances
    }

    /// Weighs block distances into face and image distances and hands them to the collector.
    private func report<Collector: MatchCollector>(
        _ distances: SlotDistances, slotCount: Int, sparse: SparseProbe,
        matcher: Matcher, into collector: inout Collector
    ) {
        let (entries, images) = lock.withLock { (stored.slots, slotsOfImage) }
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
            if let entry = entries[slot] {
                collector.collect(FaceMatch(face: entry.face, image: entry.image, distance: faceDistance[slot]))
            }
        }
        for (image, imageSlots) in images {
            var best = -1
            for slot in imageSlots
            where slot < live && (best < 0 || (faceDistance[slot], slot) < (faceDistance[best], best)) {
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
