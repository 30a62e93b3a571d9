import ArgumentParser
import Catalog
import ImageKernels

/// `cbir stats`: what the database holds.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count the stored images, failed files, faces, labels and printed photos.",
        discussion: "With --json: {images, failedImages, faces, labelledFaces, labels, printedImages}.")

    @Flag(help: "Print JSON (see above).")
    var json = false

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let store = try database.open()
        let statistics = try store.statistics()
        if json {
            try printJSON(statistics)
            return
        }
        print(
            """
            \(database.shown): \(counted(statistics.images, "image")), \
            \(counted(statistics.failedImages, "failed file")), \(counted(statistics.faces, "face")), \
            \(statistics.labelledFaces) labelled with \(counted(statistics.labels, "name")), \
            \(counted(statistics.printedImages, "photo")) printed
            """)
    }
}
