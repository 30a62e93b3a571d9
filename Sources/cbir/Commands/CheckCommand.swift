import ArgumentParser
import Catalog
import FaceDetection
import ImageKernels

/// `cbir check`: whether the database file is sound, and with --repair, what can be saved of a damaged one.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Check the database: every page and index, every face's descriptor and embedding, every face's image.",
        discussion: """
            Reads only. Prints each problem found and exits with 1 if there is any, with how to recover. With \
            --repair, a damaged database is copied row by row into a new one (what can still be read: photos, \
            faces, people and their names), which takes its place; the damaged file is kept beside it. In a sound \
            one, prints and embeddings that hold values that are not numbers are dropped, for `cbir index` to \
            make again.
            """)

    @Flag(help: "Save what can be read of a damaged database into a new one in its place.")
    var repair = false

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        if repair { return try await repairDatabase() }
        let check = try Catalog.check(path: try database.existing())
        for problem in check.problems { print(problem) }
        print(
            "\(database.shown): \(counted(check.images, "image")), \(counted(check.faces, "face")): "
                + (check.isSound ? "sound" : counted(check.problems.count, "problem")))
        if !check.isSound { throw CommandFailure(CatalogError.recovery(database.db)) }
    }

    private func repairDatabase() async throws {
        guard let repair = try Catalog.repair(path: database.db) else {
            let incomplete = try await database.open(access: .readWrite).dropUnusableVectors()
            guard !incomplete.isEmpty else { return print("\(database.shown): sound, nothing to repair") }
            print(
                """
                \(incomplete.count) photo\(incomplete.count == 1 ? "'s" : "s'") prints or embeddings held values \
                that are not numbers, or classes that could not be read, and were dropped; `cbir index` of their \
                folders makes them again:
                """)
            for path in incomplete { print("  \(FileSystemPath.displayed(path))") }
            return
        }
        for table in repair.tables {
            let lost = table.unreadableRowIDs > 0 ? ", \(counted(table.unreadableRowIDs, "row id")) unreadable" : ""
            print("\(table.name): \(counted(table.copied, "row")) saved" + lost)
        }
        if repair.rowsDropped > 0 {
            print("\(counted(repair.rowsDropped, "row")) dropped: damaged, or what they belonged to was lost")
        }
        print("\(counted(repair.labels, "named face")) kept")
        for table in repair.tablesLeftOut {
            print(
                "\(table): left out (the record of the migrations that made it is damaged); its analysis makes it again"
            )
        }
        if !repair.photosToIndexAgain.isEmpty {
            print(
                """
                \(counted(repair.photosToIndexAgain.count, "photo")) may have lost faces; `cbir index` of their \
                folders indexes them again:
                """
            )
            for path in repair.photosToIndexAgain { print("  \(path)") }
        }
        if let damaged = repair.damaged {
            print("\(database.shown): repaired; the damaged file is kept as \(damaged)")
        } else {
            print(
                """
                \(repair.repaired): the repaired copy. Another process has \(database.shown) open: when it is done, \
                put the copy in its place (mv \(repair.repaired) \(database.shown))
                """)
        }
    }
}
