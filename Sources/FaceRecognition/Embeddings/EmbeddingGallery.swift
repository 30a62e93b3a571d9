import Foundation
import ImageKernels

/// Faces' embeddings kept on a device for exact nearest-neighbour search: one row per face, appended and
/// removed by id, searched with ``EmbeddingDistance`` into the same collectors as the LBP matchers (an
/// image's distance is its nearest face's).
public final class EmbeddingGallery: @unchecked Sendable {
    public let context: RenderContext
    public let length: Int
    private let lock = NSLock()
    private var faces: [FaceID] = []
    private var rows: [Float] = []
    private var slotOfFace: [FaceID: Int] = [:]
    /// Each slot's image, as a small number (numbered as first seen) and the image of each number: a search
    /// finds each image's nearest face in an array (hashing every slot's image took a quarter of a search of
    /// 10k prints).
    private var imageNumbers: [Int32] = []
    private var imageOfNumber: [ImageID] = []
    private var numberOfImage: [ImageID: Int32] = [:]
    private var resident: ResidentImage?
    /// Rows written to the device since the last change of capacity; nil when it must be rewritten whole.
    private var uploadedCount: Int?

    public init(length: Int = FaceEmbedder.length, context: RenderContext) {
        self.length = length
        self.context = context
    }

    /// The rows of a file that ``write(to:tag:)`` made with `tag` and rows of `length` values, read in one
    /// copy: a new process has a gallery of 10k rows without reading each from its database. An error where
    /// the file is missing, holds other rows (another tag or length), or is damaged.
    public convenience init(contentsOf path: String, length: Int, tag: Data, context: RenderContext)
        throws(RecognitionError)
    {
        self.init(length: length, context: context)
        let images: [ImageID]
        (faces, images, rows) = try EmbeddingGalleryFile.read(path, length: length, tag: tag)
        imageNumbers = images.map(number)
        for (slot, face) in faces.enumerated() {
            guard slotOfFace.updateValue(slot, forKey: face) == nil else {
                throw .galleryFile(path: path, reason: "it lists \(face) twice")
            }
        }
    }

    /// Writes the rows to a file at `path`, to be read back with `tag` by
    /// ``init(contentsOf:length:tag:context:)``; a file already there is replaced in one step.
    public func write(to path: String, tag: Data) throws(RecognitionError) {
        try lock.withTypedLock { () throws(RecognitionError) in
            try EmbeddingGalleryFile.write(
                faces: faces, images: imageNumbers.map { imageOfNumber[Int($0)] }, rows: rows[...], length: length,
                to: path, tag: tag)
        }
    }

    /// Faces in the gallery.
    public var count: Int { lock.withLock { faces.count } }

    /// The identifiers of the faces in the gallery, in row order.
    public var faceIDs: [FaceID] { lock.withLock { faces } }

    /// Makes room for `faceCount` faces in host memory, so that appending them does not reallocate.
    public func reserveCapacity(_ faceCount: Int) {
        lock.withLock {
            faces.reserveCapacity(faceCount)
            imageNumbers.reserveCapacity(faceCount)
            rows.reserveCapacity(faceCount * length)
        }
    }

    /// Adds faces; an id already present is an error.
    public func append(_ batch: [(embedding: [Float], face: FaceID, image: ImageID)]) throws(RecognitionError) {
        try lock.withTypedLock { () throws(RecognitionError) in
            for entry in batch {
                guard entry.embedding.count == length else {
                    throw .invalidParameters(
                        "an embedding of \(entry.embedding.count) values in a gallery of \(length)")
                }
                guard slotOfFace[entry.face] == nil else {
                    throw .identifier("face \(entry.face) is already in the gallery")
                }
                slotOfFace[entry.face] = faces.count
                faces.append(entry.face)
                imageNumbers.append(number(of: entry.image))
                rows += entry.embedding
            }
        }
    }

    /// Removes a face: the last face moves into its row.
    public func remove(face: FaceID) throws(RecognitionError) {
        try lock.withTypedLock { () throws(RecognitionError) in
            guard let slot = slotOfFace.removeValue(forKey: face) else {
                throw .identifier("face \(face) is not in the gallery")
            }
            let last = faces.count - 1
            if slot != last {
                faces[slot] = faces[last]
                imageNumbers[slot] = imageNumbers[last]
                rows.replaceSubrange(
                    slot * length..<(slot + 1) * length, with: rows[last * length..<(last + 1) * length])
                slotOfFace[faces[slot]] = slot
            }
            faces.removeLast()
            imageNumbers.removeLast()
            rows.removeLast(length)
            uploadedCount = nil
        }
    }

    /// Each face's distance to `probe`, and each image's (its nearest face's), to `collector`.
    public func search<Collector: MatchCollector>(_ probe: [Float], into collector: inout Collector)
        throws(RecognitionError)
    {
        var collectors = [collector]
        try search([probe], into: &collectors)
        collector = collectors[0]
    }

    /// Each face's distance to each probe, and each image's (its nearest face's), to that probe's collector:
    /// the gallery is read once for all of them.
    public func search<Collector: MatchCollector>(_ probes: [[Float]], into collectors: inout [Collector])
        throws(RecognitionError)
    {
        guard probes.count == collectors.count else {
            throw .invalidParameters("\(probes.count) probes for \(collectors.count) collectors")
        }
        guard !probes.isEmpty else { return }
        guard probes.allSatisfy({ $0.count == length }) else {
            throw .invalidParameters("a probe of other than \(length) values for a gallery of \(length)")
        }
        let (faces, numbers, images, distances) = try lock.withTypedLock { () throws(RecognitionError) in
            guard !self.faces.isEmpty else { return ([FaceID](), [Int32](), [ImageID](), [Float]()) }
            do throws(RenderError) {
                let gallery = try synchronize()
                let probeImage = Image(
                    try PixelBuffer(width: length, height: probes.count, values: probes.flatMap { $0 }))
                let distances = try context.render(
                    gallery.applying(EmbeddingDistance(count: self.faces.count), with: [probeImage])
                ).floatValues
                return (self.faces, imageNumbers, imageOfNumber, distances)
            } catch {
                throw .render(error)
            }
        }
        for index in collectors.indices where !faces.isEmpty {
            // Each image's nearest face by its number: the distance and the slot (-1: no face of it seen yet).
            var nearest = [(distance: Float, slot: Int)](repeating: (.infinity, -1), count: images.count)
            for slot in faces.indices {
                let distance = distances[index * faces.count + slot], number = Int(numbers[slot])
                collectors[index].collect(FaceMatch(face: faces[slot], image: images[number], distance: distance))
                let best = nearest[number]
                if best.slot >= 0, (best.distance, faces[best.slot]) <= (distance, faces[slot]) { continue }
                nearest[number] = (distance, slot)
            }
            for (number, best) in nearest.enumerated() where best.slot >= 0 {
                collectors[index].collect(
                    ImageMatch(image: images[number], distance: best.distance, bestFace: faces[best.slot]))
            }
        }
    }

    /// The number of an image, given when first seen (the lock held). Numbers of images whose faces are
    /// all removed stay unused until the gallery is made again.
    private func number(of image: ImageID) -> Int32 {
        if let number = numberOfImage[image] { return number }
        let number = Int32(imageOfNumber.count)
        numberOfImage[image] = number
        imageOfNumber.append(image)
        return number
    }

    /// The rows on the device, brought up to date (the lock held), with spare rows past the faces:
    /// appended rows are written in place; growth past the capacity or a removal rewrites the whole image.
    private func synchronize() throws(RenderError) -> Image {
        let count = faces.count
        if let resident, let uploaded = uploadedCount, resident.descriptor.height >= count {
            if uploaded < count {
                try resident.write(rows[uploaded * length..<count * length], atByteOffset: uploaded * length * 4)
                uploadedCount = count
            }
            return resident.image
        }
        let capacity = max(count, (resident?.descriptor.height ?? 0) * 2, 64)
        let made = try context.makeResidentImage(
            ImageDescriptor(width: length, height: capacity, elementType: .float32), contents: rows[...])
        resident = made
        uploadedCount = count
        return made.image
    }
}
