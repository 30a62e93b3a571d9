import BenchmarkSupport
import Foundation
import GRDB
import TestSupport
import Testing

/// `cbir duplicates --apply trash --yes` and `--undo` killed (SIGKILL) at random moments, 20 rounds: after each
/// kill every photo's bytes are at its place or, by a journal line, at its destination, never lost, never at
/// neither; the next run completes or reverses what was cut, and at the end of each round every file is back
/// at its place, the catalog whole, the journal settled and the trash empty.
@Suite(.serialized, .needs(.ukbenchDev)) struct DuplicateCleanupKillTests {
    /// A started `cbir`, killed after `delay` seconds unless it ends first; returns how long it ran when it
    /// ended by itself, nil when it was killed.
    static func kill(_ library: DuplicateCleanupTests.Library, _ arguments: [String], after delay: Double) throws
        -> TimeInterval?
    {
        let process = Process()
        process.executableURL = library.cbir.executable
        process.arguments = arguments + library.db
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": library.folder + "/xdg"]) {
            $1
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = Date()
        try process.run()
        let deadline = start.addingTimeInterval(delay)
        while process.isRunning && Date() < deadline { usleep(1000) }
        let killed = process.isRunning
        if killed { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return killed ? nil : Date().timeIntervalSince(start)
    }

    struct Line {
        let source, destination, state: String
    }

    static func journal(_ library: DuplicateCleanupTests.Library) throws -> [Line] {
        let queue = try DatabaseQueue(path: library.folder + "/cbir.sqlite")
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT source, destination, state FROM cleanup_moves ORDER BY id").map {
                Line(source: $0["source"], destination: $0["destination"], state: $0["state"])
            }
        }
    }

    @Test func killedAnywhereNothingIsLost() throws {
        let library = try DuplicateCleanupTests.Library("kill")
        defer { try? FileManager.default.removeItem(atPath: library.folder) }
        // Six photos, each with four byte copies in folders of their own under one name: 24 copies to move,
        // their names colliding in the trash.
        var contents: [String: Data] = [:]
        for photo in 0..<6 {
            let source = SharedData.root + "/ukbench-dev/" + String(format: "ukbench%05d.jpg", photo * 4)
            for copy in 0..<5 {
                let name = "copy\(copy)/photo\(photo).jpg"
                try library.copy(source, to: name)
                contents[library.folder + "/photos/" + name] = DuplicateCleanupTests.bytes(source)
            }
        }
        _ = try library.succeeding(["index", library.folder + "/photos", "--no-faces", "--device", "cpu"])
        let apply = ["duplicates", "--device", "cpu", "--apply", "trash", "--yes"]

        /// Every photo's bytes at its place or at the destination a journal line names: never lost.
        func nothingLost(_ when: String) throws {
            let lines = try Self.journal(library)
            for (path, bytes) in contents {
                let home = DuplicateCleanupTests.bytes(path) == bytes
                let away = lines.filter { $0.source == path }.contains {
                    DuplicateCleanupTests.bytes($0.destination) == bytes
                }
                #expect(home || away, "\(when): \(path) is lost")
            }
        }
        /// Undoes every run with files still moved (at most a few), then expects everything back.
        func everythingBack(_ when: String) throws {
            var undos = 0
            while undos < 10, try library.run(["duplicates", "--undo"]).status == 0 { undos += 1 }
            for (path, bytes) in contents { #expect(DuplicateCleanupTests.bytes(path) == bytes, "\(when): \(path)") }
            let states = Set(try Self.journal(library).map(\.state))
            #expect(states.isSubset(of: ["returned", "abandoned"]), "\(when): \(states)")
            #expect(library.trashed().isEmpty, "\(when): \(library.trashed())")
            let stats = try library.json(DuplicateCleanupTests.Stats.self, ["stats"])
            #expect(stats.images == contents.count && stats.printedImages == contents.count, "\(when): \(stats)")
        }

        // One whole run first, to know how long a run takes.
        let start = Date()
        _ = try library.succeeding(apply)
        var whole = Date().timeIntervalSince(start)
        #expect(library.trashed().count == 24)
        try everythingBack("after a whole run")

        var generator = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        // Twenty rounds, and up to twenty more until ten applies were cut. A kill comes at a random time within
        // the shortest whole run seen: later runs, their files cached, can beat the first (8 of 40 cut once in CI
        // when the first run's length stayed the bound), and every apply a kill missed says how long one takes.
        var killedApplies = 0, round = 0
        while round < 20 || (killedApplies < 10 && round < 40) {
            defer { round += 1 }
            let when = "round \(round), seed \(generator.seed)"
            if let length = try Self.kill(library, apply, after: Double.random(in: 0...whole, using: &generator)) {
                whole = min(whole, length)
            } else {
                killedApplies += 1
            }
            try nothingLost(when + ", apply killed")
            if Bool.random(using: &generator) {
                // Finish the cut run's work with another, then undo that, killed too.
                _ = try library.succeeding(apply)
                try nothingLost(when + ", applied again")
                _ = try Self.kill(
                    library, ["duplicates", "--undo"], after: Double.random(in: 0...whole, using: &generator))
                try nothingLost(when + ", undo killed")
            }
            try everythingBack(when)
        }
        #expect(killedApplies >= 10, "only \(killedApplies) of \(round) applies were cut")
    }
}
