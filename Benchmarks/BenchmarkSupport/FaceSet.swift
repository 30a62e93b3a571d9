import FaceDetection
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// A folder of person sub-folders, each holding that person's face images (any supported format),
/// in name order: the ORL layout. Shared by the benchmarks that measure accuracy on such folders.
public struct FaceSet {
    public let name: String
    /// Per person, its images in name order, as decoded (gray or colour).
    public let people: [(name: String, images: [PixelBuffer])]
    /// Per person, the faces for the embedding matcher: photos with the box of the face (the whole image
    /// until ``withFaceBoxes(finder:context:)`` or ``largestFaces(finder:context:size:)`` finds it).
    public let faces: [[(photo: PixelBuffer, box: PixelRect)]]

    public init(folder: String) throws {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
            manager.isReadableFile(atPath: folder)
        else {
            throw ValidationFailure("\(folder): not a readable folder")
        }
        let names = try manager.contentsOfDirectory(atPath: folder).filter { name in
            var isFolder: ObjCBool = false
            return manager.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) && isFolder.boolValue
        }.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        var people: [(String, [PixelBuffer])] = []
        for person in names {
            let files = try manager.contentsOfDirectory(atPath: folder + "/" + person)
                .filter { !$0.hasPrefix(".") }
                .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            var images: [PixelBuffer] = []
            for file in files {
                do {
                    images.append(try ImageDecoder.decode(contentsOf: folder + "/" + person + "/" + file))
                } catch {
                    FileHandle.standardError.write(Data("skipping \(error)\n".utf8))
                }
            }
            if !images.isEmpty { people.append((person, images)) }
        }
        guard !people.isEmpty else { throw ValidationFailure("no person folders with images in \(folder)") }
        self.name = (folder as NSString).lastPathComponent
        self.people = people
        faces = people.map {
            $0.1.map { ($0, PixelRect(x: 0, y: 0, width: $0.descriptor.width, height: $0.descriptor.height)) }
        }
    }

    private init(
        name: String, people: [(name: String, images: [PixelBuffer])], faces: [[(photo: PixelBuffer, box: PixelRect)]]
    ) {
        self.name = name
        self.people = people
        self.faces = faces
    }

    /// The faces `finder` finds in a photo, and the photo's gray plane. Faces are searched down to 40 px,
    /// as the cascades search, or an eighth of a small photo's shorter side, as indexing does
    /// (``FaceSize/smallest(minimum:shortSide:)``).
    public static func faces(
        in photo: PixelBuffer, finder: any FaceFinder,
        context: RenderContext
    ) throws -> (faces: [FaceObservation], gray: PixelBuffer) {
        let gray = try context.grayPlane(of: photo), d = photo.descriptor
        let smallest = FaceSize.smallest(
            minimum: DetectionOptions.faces.minSize, shortSide: Double(min(d.width, d.height)))
        return (try finder.faces(in: photo, gray: gray, minimumFaceSize: max(1, Int(smallest.rounded()))), gray)
    }

    /// The largest of ``faces(in:finder:context:)``, and the photo's gray plane.
    static func largestFace(
        in photo: PixelBuffer, finder: any FaceFinder,
        context: RenderContext
    ) throws -> (face: FaceObservation?, gray: PixelBuffer) {
        let (faces, gray) = try faces(in: photo, finder: finder, context: context)
        return (faces.max { $0.rect.width * $0.rect.height < $1.rect.width * $1.rect.height }, gray)
    }

    /// The same images, each embedding's box that of the largest face the detector finds: the landmark model
    /// needs the face's box, even in a cropped face. Where it finds none, the median of the boxes it found in
    /// the set's other images (which are cropped alike), in proportion to the image; the whole image when it
    /// found none at all.
    public func withFaceBoxes(finder: any FaceFinder, context: RenderContext) throws -> FaceSet {
        let found = try self.faces.map { person in
            try person.map { photo, _ in
                try Self.largestFace(in: photo, finder: finder, context: context).face?.landmarkBox
            }
        }
        // Box edges as fractions of their image's sides, each edge's median.
        let fractions = zip(found.joined(), self.faces.joined()).compactMap { box, face -> [Double]? in
            let width = Double(face.photo.descriptor.width), height = Double(face.photo.descriptor.height)
            return box.map {
                [Double($0.x) / width, Double($0.y) / height, Double($0.width) / width, Double($0.height) / height]
            }
        }
        let median =
            fractions.isEmpty
            ? [0, 0, 1, 1] : (0..<4).map { edge in fractions.map { $0[edge] }.sorted()[fractions.count / 2] }
        let faces = zip(found, self.faces).map { boxes, person in
            zip(boxes, person).map { box, face in
                let width = Double(face.photo.descriptor.width), height = Double(face.photo.descriptor.height)
                return (
                    face.photo,
                    box
                        ?? PixelRect(
                            x: Int(median[0] * width), y: Int(median[1] * height),
                            width: Int(median[2] * width), height: Int(median[3] * height))
                )
            }
        }
        return FaceSet(name: name, people: people, faces: faces)
    }

    /// The same people with each photo replaced by the aligned `size` × `size` gray crop of its largest
    /// face (and, for embeddings, that face's landmark box in the photo); photos where no face is found are
    /// left out and counted.
    public func largestFaces(finder: any FaceFinder, context: RenderContext, size: Int) throws -> (
        set: FaceSet, missed: Int
    ) {
        var missed = 0
        var people: [(name: String, images: [PixelBuffer])] = [], faces: [[(photo: PixelBuffer, box: PixelRect)]] = []
        for person in self.people {
            var crops: [PixelBuffer] = [], found: [(photo: PixelBuffer, box: PixelRect)] = []
            for photo in person.images {
                let (face, gray) = try Self.largestFace(in: photo, finder: finder, context: context)
                guard let face else {
                    missed += 1
                    continue
                }
                crops.append(try finder.alignedFaces([face], in: gray, size: size))
                found.append((photo, face.landmarkBox))
            }
            if !crops.isEmpty {
                people.append((person.name, crops))
                faces.append(found)
            }
        }
        return (FaceSet(name: name + " (detected, aligned)", people: people, faces: faces), missed)
    }

    /// The same faces with the whole photo as each one's box: what the landmarks find without a detector.
    public func withWholePhotos() -> FaceSet {
        FaceSet(
            name: name, people: people,
            faces: faces.map { person in
                person.map { face in
                    (
                        face.photo,
                        PixelRect(x: 0, y: 0, width: face.photo.descriptor.width, height: face.photo.descriptor.height)
                    )
                }
            })
    }

    /// The same faces mirrored left to right, photos and boxes.
    public func mirrored() throws -> FaceSet {
        FaceSet(
            name: name, people: people,
            faces: try faces.map { person in
                try person.map { face in
                    let shape = face.photo.descriptor, width = shape.width
                    guard shape.elementType == .uint8 else { throw ValidationFailure("\(name): a photo of \(shape)") }
                    let photo = PixelBuffer(descriptor: shape) { bytes in
                        for row in 0..<shape.planeCount * shape.height {
                            for x in 0..<width {
                                bytes[row * width + x] = face.photo.bytes[row * width + width - 1 - x]
                            }
                        }
                    }
                    let box = face.box
                    return (
                        photo, PixelRect(x: width - box.x - box.width, y: box.y, width: box.width, height: box.height)
                    )
                }
            })
    }

    /// Per person, the embeddings of its faces, 32 faces to a render.
    public func embeddings(_ embedder: FaceEmbedder) throws -> [[[Float]]] {
        try faces.map { faces in
            try stride(from: 0, to: faces.count, by: 32).flatMap { start in
                try embedder.embeddings(
                    ofFaces: faces[start..<min(faces.count, start + 32)].map { ($0.photo, [$0.box]) })
            }
        }
    }
}

/// A benchmark's input that cannot be used, with the reason.
public struct ValidationFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
