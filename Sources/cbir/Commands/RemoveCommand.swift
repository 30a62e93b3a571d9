import ArgumentParser
import Catalog
import ImageKernels

/// `cbir remove`: forgets photos.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Forget a stored photo, or every photo under a folder, with its faces and labels.",
        discussion: "The files themselves are not touched.")

    @Argument(help: "A file or folder as it was indexed.")
    var path: String

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let store = try database.open(access: .readWrite)
        let removed = try await store.remove(path: path)
        guard removed > 0 else { throw CommandFailure("\(path): not in \(database.shown)") }
        print("removed \(counted(removed, "file"))")
    }
}
