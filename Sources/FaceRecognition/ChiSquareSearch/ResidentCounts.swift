import ImageKernels

/// The device's view of a gallery's stored faces (``StoredFaces``) for ``ChiSquareCounts``: their bytes, the
/// stored faces' own memory where the device shares host memory (the CPU device) and a copy where not,
/// and a copy of their block offsets with a quarter to spare. Faces are added at the end of the bytes, so
/// a change sends only the bytes added and the offsets from the lowest slot changed on; once the stored
/// faces move to new memory (grown or compacted), both are made again. Not thread-safe: ``Gallery`` guards it.
struct ResidentCounts {
    private struct View {
        let bytes: ResidentImage
        let offsets: ResidentImage
        /// The stored bytes the device has seen.
        var byteCount: Int
    }

    let context: RenderContext
    private var view: View?
    /// The lowest slot changed since the last synchronisation, if any.
    private var lowestChanged: Int?

    init(context: RenderContext) {
        self.context = context
    }

    /// Notes that a slot changed on the host.
    mutating func changed(_ slot: Int) {
        lowestChanged = min(lowestChanged ?? slot, slot)
    }

    /// The device's view, brought up to date with `stored`: its bytes and block offsets as images.
    mutating func synchronize(with stored: StoredFaces) throws(RenderError) -> (bytes: Image, offsets: Image) {
        let blocks = stored.parameters.blockCount
        if var view, view.bytes.memory === stored.memory,
            view.offsets.descriptor.elementCount >= stored.blockOffsets.count
        {
            if view.byteCount < stored.byteCount {
                try view.bytes.didModify(view.byteCount..<stored.byteCount)
            }
            if let slot = lowestChanged {
                try view.offsets.write(stored.blockOffsets[(slot * blocks)...], atByteOffset: slot * blocks * 4)
            }
            view.byteCount = stored.byteCount
            self.view = view
            lowestChanged = nil
            return (view.bytes.image, view.offsets.image)
        }
        let offsetCount = stored.blockOffsets.count + stored.blockOffsets.count / 4
        let made = View(
            bytes: try context.makeResidentImage(
                ImageDescriptor(width: stored.memory.byteCount, height: 1, elementType: .uint8),
                sharing: stored.memory),
            offsets: try context.makeResidentImage(
                ImageDescriptor(width: max(offsetCount, 1), height: 1, elementType: .uint32),
                contents: stored.blockOffsets[...]),
            byteCount: stored.byteCount)
        view = made
        lowestChanged = nil
        return (made.bytes.image, made.offsets.image)
    }
}
