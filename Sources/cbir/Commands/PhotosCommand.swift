import ArgumentParser
import Catalog
import Foundation
import ImageCodecs
import ImageKernels

/// `cbir photos`: every photo a person is in.
struct PhotosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "List every photo a person is in.",
        discussion: "With --json: a list of paths.")

    @Argument(help: "The person: id or name (see `cbir people`).")
    var person: String

    @Flag(help: "Print JSON (see above).")
    var json = false

    @Option(help: "Write a PNG sheet: the person's face in each photo, with the file name.")
    var sheet: String?

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let store = try database.open()
        let found = try store.person(person)
        let paths = try store.photos(of: found.id)
        if let sheet {
            let cells = try store.faces(of: found.id).map { path, face in
                MatchSheet.Cell(
                    face: try MatchSheet.face(thumbnail: face.thumbnail, name: "thumbnail of face \(face.id ?? 0)"),
                    caption: ["face \(face.id ?? 0)", (path as NSString).lastPathComponent])
            }
            try ImageEncoder.write(try MatchSheet.make(cells), to: sheet)
        }
        if json {
            try printJSON(paths)
            return
        }
        for path in paths { print(path) }
    }
}
