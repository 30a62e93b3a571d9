import ArgumentParser
import CBIRDatabase
import ImageKernels

/// `cbir check`: whether the database file is sound.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the database: every page and index, every face's descriptor and embedding, every face's image.",
        discussion: "Reads only. Prints each problem found and exits with 1 if there is any, with how to recover.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let store = try database.open(context: RenderContext(device: .cpu), embeddings: false)
        let check = try store.check()
        for problem in check.problems { print(problem) }
        print("\(database.db): \(check.images) images, \(check.faces) faces: "
              + (check.isSound ? "sound" : "\(check.problems.count) problem\(check.problems.count == 1 ? "" : "s")"))
        if !check.isSound { throw CommandFailure(DatabaseError.recovery(database.db)) }
    }
}
