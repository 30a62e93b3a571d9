import FaceDetection
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// A folder of person sub-folders, each holding that person's face images (any supported format),
/// in name order: the ORL layout.
struct FaceSet {
    let name: String
    /// Per person, its images in name order, as decoded (gray or colour).
    let people: [(name: String, images: [PixelBuffer])]
    /// Per person, the faces for the embedding matcher: photos with the box of the face (the whole image
    /// until ``withFaceBoxes(finder:context:)`` or ``largestFaces(finder:context:size:)`` finds it).
    let faces: [[(photo: PixelBuffer, box: PixelRect)]]

    init(folder: String) throws {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
              manager.isReadableFile(atPath: folder) else {
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
                    progress("skipping \(error)")
                }
            }
            if !images.isEmpty { people.append((person, images)) }
        }
        guard !people.isEmpty else { throw ValidationFailure("no person folders with images in \(folder)") }
        self.name = (folder as NSString).lastPathComponent
        self.people = people
        faces = people.map { $0.1.map { ($0, PixelRect(x: 0, y: 0, width: $0.descriptor.width, height: $0.descriptor.height)) } }
    }

    private init(name: String, people: [(name: String, images: [PixelBuffer])], faces: [[(photo: PixelBuffer, box: PixelRect)]]) {
        self.name = name
        self.people = people
        self.faces = faces
    }

    /// The same images, each embedding's box that of the largest face the detector finds (the whole image
    /// where it finds none): the landmark model needs the face's box, even in a cropped face.
    func withFaceBoxes(finder: FaceFinder, context: RenderContext) throws -> FaceSet {
        let faces = try self.faces.map { person in
            try person.map { photo, whole in
                let gray = photo.descriptor.channels == 1 ? photo : try context.render(Image(photo).grayscale())
                let face = try finder.faces(in: gray).max { $0.rect.width * $0.rect.height < $1.rect.width * $1.rect.height }
                return (photo, face?.landmarkBox ?? whole)
            }
        }
        return FaceSet(name: name, people: people, faces: faces)
    }

    /// The same people with each photo replaced by the aligned `size` × `size` gray crop of its largest
    /// face (and, for embeddings, that face's landmark box in the photo); photos where no face is found are
    /// left out and counted.
    func largestFaces(finder: FaceFinder, context: RenderContext, size: Int) throws -> (set: FaceSet, missed: Int) {
        var missed = 0
        var people: [(name: String, images: [PixelBuffer])] = [], faces: [[(photo: PixelBuffer, box: PixelRect)]] = []
        for person in self.people {
            var crops: [PixelBuffer] = [], found: [(photo: PixelBuffer, box: PixelRect)] = []
            for photo in person.images {
                let gray = photo.descriptor.channels == 1 ? photo : try context.render(Image(photo).grayscale())
                guard let face = try finder.faces(in: gray).max(by: { $0.rect.width * $0.rect.height < $1.rect.width * $1.rect.height }) else {
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
}

struct ValidationFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
