import BenchmarkSupport
import Foundation
import GRDB
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// `cbir duplicates --apply`, `--runs` and `--undo` end to end: the dry run changes nothing, the copies go to a
/// freedesktop.org trash (made under the test's own `XDG_DATA_HOME`) or under a folder, the catalog follows
/// at once, and the undo puts back every file with its faces, names, people and prints.
@Suite(.serialized) struct DuplicateCleanupTests {
    struct Stats: Decodable, Equatable {
        let images, faces, printedImages: Int
    }
    struct Person: Decodable {
        let id: Int64
        let name: String?
        let faces: Int
    }
    struct Run: Decodable {
        let id: Int64
        let moved, returned, abandoned: Int
        let undone: Double?
    }

    /// A temporary folder of photos, the catalog in it, and `cbir` run with the folder's own trash.
    struct Library {
        let folder: String
        let cbir: CommandRunner
        let db: [String]
        var trash: String { folder + "/xdg/Trash" }

        init(_ name: String, store: TestStore = .sqlite) throws {
            folder = try DatabaseCommandTests.temporaryFolder()
            try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
            cbir = try CommandRunner(product: "cbir")
            db = ["--db", try store.catalog(in: folder, name: name)]
        }

        func run(_ arguments: [String]) throws -> CommandRunner.Output {
            try cbir.run(arguments + db, environment: ["XDG_DATA_HOME": folder + "/xdg"])
        }

        /// What `cbir` prints, expecting it to succeed.
        func succeeding(_ arguments: [String]) throws -> String {
            let output = try run(arguments)
            #expect(output.status == 0, "\(arguments): \(output.standardError)")
            return output.standardOutput
        }

        func json<T: Decodable>(_ type: T.Type, _ arguments: [String]) throws -> T {
            try JSONDecoder().decode(type, from: Data(try succeeding(arguments + ["--json"]).utf8))
        }

        /// The files in the trash's `files/`.
        func trashed() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: trash + "/files")) ?? []).sorted()
        }

        func copy(_ source: String, to name: String) throws {
            let path = folder + "/photos/" + name
            try FileManager.default.createDirectory(
                atPath: FileSystemPath.folder(of: path), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: source, toPath: path)
        }
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Obama's photo and a byte copy of it among the wild photos' train/ set, his person named: the copy kept by
    /// --keep, the original goes to the trash with its face, and comes back with it, in his person, named.
    @Test(.needs(.wildPhotos), arguments: TestStore.allCases) func trashAndUndoKeepFacesNamesAndPrints(
        store: TestStore
    ) throws {
        let library = try Library("cleanup", store: store)
        defer { try? FileManager.default.removeItem(atPath: library.folder) }
        let train = SharedData.root + "/wild-photos/train"
        for person in try FileManager.default.contentsOfDirectory(atPath: train) {
            for name in try FileManager.default.contentsOfDirectory(atPath: train + "/" + person) {
                try library.copy(train + "/\(person)/\(name)", to: "\(person)/\(name)")
            }
        }
        let original = library.folder + "/photos/obama/obama.jpg", copy = library.folder + "/photos/obama/copy.jpg"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let bytes = try #require(Self.bytes(original))
        _ = try library.succeeding(["index", library.folder + "/photos", "--device", "cpu"])
        let obama = try #require(
            try library.json([Person].self, ["people"]).first { person in
                try library.json([String].self, ["photos", "\(person.id)"]).contains(original)
            })
        _ = try library.succeeding(["people", "name", "\(obama.id)", "Barack Obama"])
        let before = try library.json(Stats.self, ["stats"])
        func obamaPhotos() throws -> [String] { try library.json([String].self, ["photos", "Barack Obama"]) }
        #expect(try obamaPhotos().contains(original))

        // The dry run says what would move and moves nothing.
        let dry = try library.succeeding(["duplicates", "--device", "cpu", "--apply", "trash", "--keep", copy])
        #expect(dry.contains("would move \(original)") && dry.contains("nothing moved yet"), "\(dry)")
        #expect(Self.bytes(original) == bytes && library.trashed().isEmpty)

        let applied = try library.succeeding([
            "duplicates", "--device", "cpu", "--apply", "trash", "--yes", "--keep", copy,
        ])
        #expect(applied.contains("moved 1 copy"), "\(applied)")
        #expect(!FileManager.default.fileExists(atPath: original) && Self.bytes(copy) == bytes)
        #expect(library.trashed() == ["obama.jpg"] && Self.bytes(library.trash + "/files/obama.jpg") == bytes)
        let info = String(decoding: Self.bytes(library.trash + "/info/obama.jpg.trashinfo") ?? Data(), as: UTF8.self)
        #expect(info.hasPrefix("[Trash Info]\nPath=\(original)\nDeletionDate=20"), "\(info)")
        // The catalog follows at once: the photo, its face and its print are gone from every list.
        let after = try library.json(Stats.self, ["stats"])
        #expect(
            after == Stats(images: before.images - 1, faces: before.faces - 1, printedImages: before.printedImages - 1),
            "\(before) → \(after)")
        #expect(try !obamaPhotos().contains(original) && obamaPhotos().contains(copy))
        #expect(try library.succeeding(["duplicates", "--device", "cpu"]).contains("0 groups"))
        let runs = try library.json([Run].self, ["duplicates", "--runs"])
        #expect(runs.count == 1 && runs.first?.moved == 1 && runs.first?.undone == nil, "\(runs)")

        let undone = try library.succeeding(["duplicates", "--undo"])
        #expect(undone.contains("put back \(original)"), "\(undone)")
        #expect(Self.bytes(original) == bytes && library.trashed().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: library.trash + "/info/obama.jpg.trashinfo"))
        #expect(try library.json(Stats.self, ["stats"]) == before)
        #expect(try obamaPhotos().contains(original))
        #expect(
            try library.json([Person].self, ["people"]).first { $0.name == "Barack Obama" }?.faces == obama.faces)
        let undoneRuns = try library.json([Run].self, ["duplicates", "--runs"])
        #expect(undoneRuns.first?.returned == 1 && undoneRuns.first?.undone != nil, "\(undoneRuns)")
        // Nothing is left to undo: said, not silently done.
        let again = try library.run(["duplicates", "--undo"])
        #expect(again.status != 0 && again.standardError.contains("files still moved"), "\(again)")
    }

    /// UKBench photos with copies: which copy stays (the default, --keep-in, --keep), the copies under a folder
    /// at their paths inside the indexed folder, a copy changed since indexing left alone, and an undo that
    /// finds a copy's place taken leaving that copy where it is.
    @Test(.needs(.ukbenchDev)) func keepersFoldersAndChangedCopies() throws {
        let library = try Library("keepers")
        defer { try? FileManager.default.removeItem(atPath: library.folder) }
        let source = SharedData.root + "/ukbench-dev/"
        for number in [0, 4, 8, 12] {
            try library.copy(source + String(format: "ukbench%05d.jpg", number), to: "album/\(number).jpg")
        }
        try library.copy(source + "ukbench00000.jpg", to: "camera/0.jpg")
        try library.copy(source + "ukbench00004.jpg", to: "camera/4.jpg")
        try library.copy(source + "ukbench00008.jpg", to: "other/8.jpg")
        let pixels = try ImageDecoder.decode(contentsOf: source + "ukbench00012.jpg")
        let half = try RenderContext(device: .cpu).render(
            Image(pixels).resized(
                width: pixels.descriptor.width / 2, height: pixels.descriptor.height / 2, method: .area))
        try ImageEncoder.write(half, to: library.folder + "/photos/album/12-half.jpg", quality: 90)
        let photos = library.folder + "/photos"
        _ = try library.succeeding(["index", photos, "--no-faces", "--device", "cpu"])

        struct Plan: Decodable {
            struct Move: Decodable { let path, keeper, destination: String }
            struct LeftAlone: Decodable { let path, reason: String }
            let moves: [Move]
            let leftAlone: [LeftAlone]
        }
        func plan(_ options: [String]) throws -> [String: String] {
            let plan = try library.json(Plan.self, ["duplicates", "--device", "cpu", "--apply", "trash"] + options)
            return Dictionary(uniqueKeysWithValues: plan.moves.map { ($0.path, $0.keeper) })
        }
        // The full-size photo over its half-size copy, whatever the options; between byte copies, --keep-in.
        let kept = try plan(["--keep-in", photos + "/camera"])
        #expect(kept[photos + "/album/0.jpg"] == photos + "/camera/0.jpg", "\(kept)")
        #expect(kept[photos + "/album/4.jpg"] == photos + "/camera/4.jpg", "\(kept)")
        #expect(
            kept[photos + "/other/8.jpg"] == photos + "/album/8.jpg"
                || kept[photos + "/album/8.jpg"] == photos + "/other/8.jpg")
        #expect(kept[photos + "/album/12-half.jpg"] == photos + "/album/12.jpg", "\(kept)")
        let named = try plan(["--keep", photos + "/album/12-half.jpg", "--keep-in", photos + "/camera"])
        #expect(named[photos + "/album/12.jpg"] == photos + "/album/12-half.jpg", "\(named)")
        let album = try plan(["--keep-in", photos + "/album"])
        #expect(album[photos + "/camera/0.jpg"] == photos + "/album/0.jpg", "\(album)")
        for refused in [["--keep", photos + "/nowhere.jpg"], ["--apply", "move-to"], ["--yes"]] {
            let output = try library.run(
                ["duplicates", "--device", "cpu"] + (refused.first == "--keep" ? ["--apply", "trash"] : []) + refused)
            #expect(output.status != 0, "\(refused): \(output)")
        }

        // A copy changed since it was indexed is left alone, and said so.
        let changed = photos + "/album/4.jpg"
        try FileHandle(forWritingAtPath: changed).map { handle in
            handle.seekToEndOfFile()
            handle.write(Data([0]))
            try handle.close()
        }
        let aside = library.folder + "/aside"
        let moved = try library.run(
            ["duplicates", "--device", "cpu", "--apply", "move-to", aside, "--yes", "--keep-in", photos + "/camera"])
        #expect(
            moved.status == 0 && moved.standardError.contains("\(changed): changed since it was indexed"), "\(moved)")
        #expect(FileManager.default.fileExists(atPath: changed))
        for name in ["album/0.jpg", "album/12-half.jpg"] {
            #expect(FileManager.default.fileExists(atPath: aside + "/" + name), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: photos + "/" + name), "\(name)")
        }

        // Its place taken, a copy stays aside; the others come back.
        try FileManager.default.copyItem(atPath: aside + "/album/0.jpg", toPath: photos + "/album/0.jpg")
        let undo = try library.run(["duplicates", "--undo"])
        #expect(undo.status != 0 && undo.standardOutput.contains("its place is taken"), "\(undo)")
        #expect(FileManager.default.fileExists(atPath: aside + "/album/0.jpg"))
        #expect(FileManager.default.fileExists(atPath: photos + "/album/12-half.jpg"))
        #expect(!FileManager.default.fileExists(atPath: aside + "/album/12-half.jpg"))
    }
}
