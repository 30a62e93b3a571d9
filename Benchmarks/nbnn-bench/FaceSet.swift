import FaceDetection
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// A folder of person sub-folders, each holding that person's face images (any supported format),
/// in name order: the ORL layout.
struct FaceSet {
    let name: String
    /// Per person, its images in name order.
    let people: [(name: String, images: [PixelBuffer])]

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
                    images.append(try ImageDecoder.decode(contentsOf: folder + "/" + person + "/" + file,
                                                          options: DecodingOptions(grayscale: true)))
                } catch {
                    progress("skipping \(error)")
                }
            }
            if !images.isEmpty { people.append((person, images)) }
        }
        guard !people.isEmpty else { throw ValidationFailure("no person folders with images in \(folder)") }
        self.name = (folder as NSString).lastPathComponent
        self.people = people
    }

    private init(name: String, people: [(name: String, images: [PixelBuffer])]) {
        self.name = name
        self.people = people
    }

    /// The same people with each photo replaced by the aligned `size` × `size` crop of its largest face;
    /// photos where no face is found are left out and counted.
    func largestFaces(finder: FaceFinder, size: Int) throws -> (set: FaceSet, missed: Int) {
        var missed = 0
        let people = try people.map { person in
            (name: person.name, images: try person.images.compactMap { photo -> PixelBuffer? in
                guard let face = try finder.faces(in: photo).max(by: { $0.rect.width * $0.rect.height < $1.rect.width * $1.rect.height }) else {
                    missed += 1
                    return nil
                }
                return try finder.alignedFaces([face], in: photo, size: size)
            })
        }.filter { !$0.images.isEmpty }
        return (FaceSet(name: name + " (detected, aligned)", people: people), missed)
    }
}

struct ValidationFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
