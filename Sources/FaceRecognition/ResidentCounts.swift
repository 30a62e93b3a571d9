import ImageKernels

/// The device copy of a gallery's stored faces (``StoredFaces``) for ``ChiSquareCounts``: their bytes and
/// block offsets, with a quarter to spare (and 8 bytes more, see `ChiSquareCounts.cl`). Faces are added at
/// the end of the bytes, so a change sends only the bytes added and the offsets from the lowest slot
/// changed on; after a compaction, or beyond the spare room, both are made again. Not thread-safe: ``Gallery`` guards it.
struct ResidentCounts {
    private struct Copy {
        let bytes: ResidentImage
        let offsets: ResidentImage
        /// The stored bytes and the compaction they were sent from.
        var byteCount: Int
        var compactions: Int
    }

    let context: RenderContext
    private var copy: Copy?
    /// The lowest slot changed since the last synchronisation, if any.
    private var lowestChanged: Int?

    init(context: RenderContext) {
        self.context = context
    }

    /// Notes that a slot changed on the host.
    mutating func changed(_ slot: Int) {
        lowestChanged = min(lowestChanged ?? slot, slot)
    }

    /// The device copy, brought up to date with `stored`: its bytes and block offsets as images.
    mutating func synchronize(with stored: StoredFaces) throws(RenderError) -> (bytes: Image, offsets: Image) {
        let blocks = stored.parameters.blockCount
        if var copy, copy.compactions == stored.compactions, copy.bytes.descriptor.elementCount >= stored.bytes.count + 8,
           copy.offsets.descriptor.elementCount >= stored.blockOffsets.count {
            if copy.byteCount < stored.bytes.count {
                try copy.bytes.write(stored.bytes[copy.byteCount...], atByteOffset: copy.byteCount)
            }
            if let slot = lowestChanged {
                try copy.offsets.write(stored.blockOffsets[(slot * blocks)...], atByteOffset: slot * blocks * 4)
            }
            copy.byteCount = stored.bytes.count
            self.copy = copy
            lowestChanged = nil
            return (copy.bytes.image, copy.offsets.image)
        }
        // The kernel reads bitmaps 8 bytes at a time: at least 8 to spare past the last.
        func spare(_ count: Int) -> Int { count + count / 4 + 8 }
        let made = Copy(bytes: try context.makeResidentImage(ImageDescriptor(width: spare(stored.bytes.count), height: 1, elementType: .uint8),
                                                             contents: stored.bytes[...]),
                        offsets: try context.makeResidentImage(ImageDescriptor(width: spare(stored.blockOffsets.count), height: 1,
                                                                               elementType: .uint32),
                                                               contents: stored.blockOffsets[...]),
                        byteCount: stored.bytes.count, compactions: stored.compactions)
        copy = made
        lowestChanged = nil
        return (made.bytes.image, made.offsets.image)
    }
}
