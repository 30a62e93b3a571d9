import Catalog
import Foundation
import Testing

/// What a stored photo's file says when it cannot be opened as the photo indexed.
@Suite struct IndexedFileTests {
    /// A record as the catalog returns it for `path`.
    static func record(path: String) throws -> ImageRecord {
        let fields: [String: Any] = [
            "path": path, "size": 1, "modified": 0, "hash": "", "width": 1, "height": 1, "status": "indexed",
        ]
        let json = try JSONSerialization.data(withJSONObject: fields)
        return try JSONDecoder().decode(ImageRecord.self, from: json)
    }

    /// A photo of a library this machine has no root for is stored by its library's path, which no file here
    /// has: the error names the library and the command that gives it a root, not a folder "family:".
    @Test func aLibraryWithoutARootHereSaysSo() throws {
        let error = #expect(throws: IndexedFile.Stale.self) {
            try IndexedFile(try Self.record(path: "family:/2024/beach.jpg"))
        }
        #expect(
            error?.description
                == "gone since it was indexed (library family has no folder on this machine: "
                + "`cbir index FOLDER --library family` names it)", "\(String(describing: error))")
    }

    /// A file that is gone says so.
    @Test func aMissingFileSaysSo() throws {
        let path = NSTemporaryDirectory() + "indexed-file-" + UUID().uuidString + ".jpg"
        let error = #expect(throws: IndexedFile.Stale.self) { try IndexedFile(try Self.record(path: path)) }
        guard case .missing(let reason) = error else {
            Issue.record("expected a missing file, got \(String(describing: error))")
            return
        }
        #expect(reason == "no such file", "\(reason)")
    }
}
