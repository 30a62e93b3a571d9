import ArgumentParser
import Catalog
import ImageKernels

/// `cbir label`: names a stored face, for `identify`.
struct LabelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Name a stored face (by its id, as `query` prints it, or as a stored photo's face).",
        discussion: "Labels take effect at once: identify compares with the labelled faces as they are stored.")

    @Argument(help: "A face id, or the path of an indexed photo.")
    var target: String

    @Argument(help: "The name. Leave out with --clear.")
    var name: String?

    @Option(
        parsing: .unconditional, help: "With a photo: which face, numbered from 1 left to right. Default: the largest.")
    var face: Int?

    @Flag(help: "Remove the face's label.")
    var clear = false

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard clear != (name != nil) else { throw ValidationError("give a name, or --clear") }
        guard (face ?? 1) >= 1 else { throw ValidationError("--face counts from 1") }
    }

    func run() async throws {
        let store = try database.open(access: .readWrite)
        let id: Int64
        if let number = Int64(target) {
            id = number
        } else {
            let faces = try store.faces(inImageAtPath: target)
            id = faces[try (face.map(FaceChoice.number) ?? .largest).index(among: faces, of: target)].id ?? -1
        }
        let stored = try await store.label(face: id, as: name)
        print("face \(id): \(stored ?? "no label")")
    }
}
