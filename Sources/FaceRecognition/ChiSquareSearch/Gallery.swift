import Foundation
import ImageKernels

/// Face descriptors of many faces, grouped by image, kept in their stored form (`StoredFaces`) and on
/// the device between queries: as they are for the restricted matchers (`ChiSquareCounts`), unpacked
/// into dense tiles (`PackedFaces`, `ResidentTiles`) once a search needs them. Faces are appended and
/// removed in place: a change re-sends only what it touched, and freed slots are reused. Searching is in
/// `GallerySearch.swift`. Safe to use from any thread.
public final class Gallery: @unchecked Sendable {
    public let parameters: DescriptorParameters
    public let context: RenderContext
    /// Largest device allocation a segment's dense tiles take.
    public let segmentBytes: Int

    let lock = NSLock()
    var stored: StoredFaces
    var counts: ResidentCounts
    var packed: PackedFaces
    var resident: ResidentTiles
    /// Slots changed since the dense tiles were last brought up to date; nil while no search has needed them.
    private var unpacked: Set<Int>?
    private var slotOfFace: [FaceID: Int] = [:]
    private(set) var slotsOfImage: [ImageID: [Int]] = [:]

    /// An empty gallery for descriptors of `parameters`, on the context's device, its dense tiles in device
    /// segments of at most `segmentBytes` (at least one tile).
    public init(parameters: DescriptorParameters, context: RenderContext, segmentBytes: Int = 256 << 20) {
        self.parameters = parameters
        self.context = context
        self.segmentBytes = segmentBytes
        stored = StoredFaces(parameters: parameters)
        counts = ResidentCounts(context: context)
        packed = PackedFaces(parameters: parameters)
        resident = ResidentTiles(context: context, segmentBytes: segmentBytes)
    }

    /// The faces of a gallery file that ``write(to:tag:)`` made with `tag` and these parameters, their
    /// stored forms searched where they lie in the mapped file until a face is added: a new process has a
    /// gallery of 10k faces without reading and copying each. An error where the file is missing, holds
    /// other faces (another tag or parameters), or is damaged.
    public convenience init(
        contentsOf path: String, parameters: DescriptorParameters, tag: Data, context: RenderContext,
        segmentBytes: Int = 256 << 20
    ) throws(RecognitionError) {
        self.init(parameters: parameters, context: context, segmentBytes: segmentBytes)
        stored = try StoredFacesFile.read(path, parameters: parameters, tag: tag)
        for (slot, entry) in stored.slots.enumerated() {
            guard let entry else { continue }
            guard slotOfFace.updateValue(slot, forKey: entry.face) == nil else {
                throw .galleryFile(path: path, reason: "it lists \(entry.face) twice")
            }
            slotsOfImage[entry.image, default: []].append(slot)
        }
    }

    /// Writes the faces to a gallery file at `path`, to be read back with `tag` by
    /// ``init(contentsOf:parameters:tag:context:segmentBytes:)``; a file already there is replaced in one
    /// step, so a reader sees the old file or the new one.
    public func write(to path: String, tag: Data) throws(RecognitionError) {
        // The stored forms before the copy's byte count never change in place: appends go after them, and
        // compaction moves them to new memory.
        let snapshot = lock.withLock { stored }
        try StoredFacesFile.write(snapshot, to: path, tag: tag)
    }

    /// Faces in the gallery.
    public var count: Int { lock.withLock { slotOfFace.count } }

    /// The identifiers of the faces in the gallery, in no order.
    public var faceIDs: [FaceID] { lock.withLock { Array(slotOfFace.keys) } }

    /// Device bytes per face slot in the dense tiles: its histograms plus its block sums.
    public var bytesPerFace: Int { (parameters.length + parameters.blockCount) * 4 }

    /// Adds faces; each identifier must be new.
    public func append(_ faces: [(descriptor: FaceDescriptor, face: FaceID, image: ImageID)]) throws(RecognitionError) {
        for entry in faces { try entry.descriptor.checkComparable(with: parameters) }
        try append(encoded: faces.map { ($0.descriptor.encoded(), $0.face, $0.image) })
    }

    /// Adds one face.
    public func append(_ descriptor: FaceDescriptor, face: FaceID, image: ImageID) throws(RecognitionError) {
        try append([(descriptor, face, image)])
    }

    /// Adds faces in their stored form (``FaceDescriptor/encoded()``) of this gallery's parameters, as they
    /// come from storage, without unpacking them; each identifier must be new, and a damaged form is an
    /// error naming its face (the faces before it are added).
    public func append(encoded faces: [(encoded: Data, face: FaceID, image: ImageID)]) throws(RecognitionError) {
        try locked { () throws(RecognitionError) in
            var seen: Set<FaceID> = []
            for entry in faces where slotOfFace[entry.face] != nil || !seen.insert(entry.face).inserted {
                throw .identifier("\(entry.face) is already in the gallery")
            }
            for entry in faces {
                let slot = try store(entry)
                slotOfFace[entry.face] = slot
                slotsOfImage[entry.image, default: []].append(slot)
                changed(slot)
            }
        }
    }

    /// Stores one face's stored form; a damaged one is an error naming the face.
    private func store(_ entry: (encoded: Data, face: FaceID, image: ImageID)) throws(RecognitionError) -> Int {
        let stored = entry.encoded.withUnsafeBytes { bytes in
            Result { () throws(RecognitionError) in try self.stored.store(bytes, face: entry.face, image: entry.image) }
        }
        switch stored {
        case .success(let slot): return slot
        case .failure(.damagedDescriptor(let reason)): throw .damagedDescriptor("\(entry.face): \(reason)")
        case .failure(let error): throw error
        }
    }

    /// Makes room for `faceCount` faces in all, so that appending them in batches does not grow the
    /// stored bytes step by step.
    public func reserveCapacity(_ faceCount: Int) {
        // Bitmaps, and counts for about a quarter of the bins (61 of 256 in real faces).
        lock.withLock {
            stored.reserveCapacity(faces: faceCount, bytesPerFace: parameters.length / 8 + parameters.length / 4)
        }
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

    private func clear(_ slot: Int) {
        guard let entry = stored.clear(slot) else { return }
        slotOfFace[entry.face] = nil
        slotsOfImage[entry.image]?.removeAll { $0 == slot }
        if slotsOfImage[entry.image]?.isEmpty == true { slotsOfImage[entry.image] = nil }
        changed(slot)
    }

    /// Notes that a slot changed: the device copies are out of date.
    private func changed(_ slot: Int) {
        counts.changed(slot)
        unpacked?.insert(slot)
    }

    /// The dense tiles, brought up to date with the stored faces and sent to the device (caller holds the lock).
    func synchronizeDenseTiles() throws(RecognitionError) {
        let changed = unpacked ?? Set(stored.slots.indices)
        packed.cover(stored.slots.count)
        for slot in changed where slot < stored.slots.count {
            packed.set(slot, try stored.histograms(slot))
            resident.changed(slot / PackedFaces.lanes, of: packed)
        }
        unpacked = []
        do { try resident.synchronize(with: packed) } catch { throw .render(error) }
    }

    /// Runs `body` holding the lock, passing its typed error on.
    func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withTypedLock(body)
    }
}
