import ArgumentParser
import Catalog
import Foundation

/// `cbir copy`: a catalog moved between stores.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a catalog into a new one: a SQLite file to a PostgreSQL database, or back.",
        discussion: """
            Every table is copied with its keys (photos, faces, their descriptors and embeddings, people with their \
            names and hidden flags, prints, indexing runs) into an empty catalog, made where there is none, in one \
            transaction; the copy is read back and compared row for row before it is committed, so a copy that \
            fails leaves the destination as it was. PostgreSQL keeps prints at half precision (halfvec). With \
            --json: {from, to, tables: [{name, rows}]}.
            """)

    @Option(help: "The catalog to copy: a SQLite file or a postgres:// URL.")
    var from: String

    @Option(help: "Where to copy it: a new SQLite file or a postgres:// URL of a database without a catalog.")
    var to: String

    @Flag(help: "Print JSON (see above).")
    var json = false

    func run() throws {
        if !PostgresLocation.isURL(from), !FileManager.default.fileExists(atPath: from) {
            throw CommandFailure("\(from): no such database")
        }
        let report = try CatalogCopy.copy(from: from, to: to)
        if json {
            try printJSON(report)
            return
        }
        print("copied \(report.from) to \(report.to), checked row for row:")
        for table in report.tables { print("  \(table.name): \(table.rows) row\(table.rows == 1 ? "" : "s")") }
    }
}
