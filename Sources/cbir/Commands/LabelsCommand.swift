import ArgumentParser
import Catalog
import Foundation
import ImageKernels

/// `cbir labels`: labels out to a JSON file and back in, to carry them to a new database.
struct LabelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels",
        abstract: "Export the face labels to a JSON file, or import them from one.",
        discussion: """
            The file is a JSON array of {path, x, y, width, height, label}: a photo's path and a face's box in it. \
            Import gives each label to the face of that photo whose box overlaps it most (by at least half), so \
            labels survive indexing the same photos into a new database. Export reads what it can of a damaged \
            database and says how many parts it could not read.
            """)

    @Option(help: "Write the labels to this file.")
    var export: String?

    @Option(name: .customLong("import"), help: "Read labels from this file.")
    var importFile: String?

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard (export == nil) != (importFile == nil) else {
            throw ValidationError("give --export FILE or --import FILE")
        }
    }

    func run() async throws {
        if let export {
            let store = try database.open()
            let (labels, unreadable) = try store.labels()
            do { try FaceLabel.encoder.encode(labels).write(to: URL(fileURLWithPath: export)) } catch {
                throw CommandFailure("\(export): cannot write: \(error.localizedDescription)")
            }
            print(
                "\(export): \(counted(labels.count, "label"))"
                    + (unreadable > 0 ? " (\(unreadable) damaged parts of the database skipped)" : ""))
        } else if let importFile {
            let labels: [FaceLabel], bytes: [UInt8]
            do {
                bytes = try RegularFile.contents(of: importFile)
            } catch {
                throw CommandFailure("\(importFile): cannot read: \(error)")
            }
            do { labels = try JSONDecoder().decode([FaceLabel].self, from: Data(bytes)) } catch {
                throw CommandFailure("\(importFile): not a labels file: \(error.localizedDescription)")
            }
            let store = try database.open(access: .readWrite)
            let unmatched = try await store.importLabels(labels)
            for label in unmatched { print("no face for \(label.label) at \(label.x),\(label.y) in \(label.path)") }
            print("\(database.shown): \(labels.count - unmatched.count) of \(counted(labels.count, "label")) applied")
        }
    }
}
