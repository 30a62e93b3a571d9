import Foundation
import ImageKernels

/// Face descriptors of many faces, grouped by image, packed for the search kernels (``PackedFaces``) and
/// kept on the device between queries (``ResidentTiles``). Faces are appended and removed in place: a
/// change re-sends only the tiles it touched, and freed slots are reused. Searching is in
/// `GallerySearch.swift`. Safe to use from any thread.
public final class Gallery: @unchecked Sendable {
    public let parameters: DescriptorParameters
    public let context: RenderContext
    /// Largest device allocation a segment's tiles take.
    public let segmentBytes: Int

    let lock = NSLock()
    var packed: PackedFaces
    var resident: ResidentTiles
    private var slotOfFace: [FaceID: Int] = [:]
    private(set) var slotsOfImage: [ImageID: [Int]] = [:]

    /// An empty gallery for descriptors of `parameters`, on the context's device, in device segments of
    /// at most `segmentBytes` (at least one tile).
    public init(parameters: DescriptorParameters, context: RenderContext, segmentBytes: Int = 256 << 20) {
        self.parameters = parameters
        self.context = context
        self.segmentBytes = segmentBytes
        packed = PackedFaces(parameters: parameters)
        resident = ResidentTiles(context: context, segmentBytes: segmentBytes)
    }

    /// Faces in the gallery.
    public var count: Int { lock.withLock { slotOfFace.count } }

    /// Device bytes per face slot: its histograms plus its block sums.
    public var bytesPerFace: Int { (parameters.length + parameters.blockCount) * 4 }

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
            for entry in faces {
                let slot = packed.store(entry.descriptor.histograms, PackedFaces.Entry(face: entry.face, image: entry.image))
                slotOfFace[entry.face] = slot
                slotsOfImage[entry.image, default: []].append(slot)
                resident.changed(slot / PackedFaces.lanes, of: packed)
            }
        }
    }

    /// Adds one face.
    public func append(_ descriptor: FaceDescriptor, face: FaceID, image: ImageID) throws(RecognitionError) {
        try append([(descriptor, face, image)])
    }

    /// Makes room for `faceCount` faces in all, so that appending them in batches does not grow the
    /// packed arrays step by step.
    public func reserveCapacity(_ faceCount: Int) {
        lock.withLock { packed.reserveCapacity(faces: faceCount) }
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
        guard let entry = packed.clear(slot) else { return }
        slotOfFace[entry.face] = nil
        slotsOfImage[entry.image]?.removeAll { $0 == slot }
        if slotsOfImage[entry.image]?.isEmpty == true { slotsOfImage[entry.image] = nil }
        resident.changed(slot / PackedFaces.lanes, of: packed)
    }

    /// Runs `body` holding the lock, passing its typed error on.
    func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withTypedLock(body)
    }
}
