import Foundation
import ImageKernels

extension Catalog {
    /// Completes or reverses the moves this machine's cleanups left half done (killed, or the power cut),
    /// by where each file is now: a file at its destination is moved (its rows taken out), one still at its
    /// place is left there (its `.trashinfo` or partial copy removed), and the same for an undo stopped half
    /// way. A file found at both places is never removed unless the other place holds its very bytes. Every
    /// cleanup and undo starts with this. Returns what it did, a line a file.
    @discardableResult
    public func recoverCleanup() throws(CatalogError) -> [String] {
        let lines = try reading { connection in
            try CleanupJournal.lines(
                where: "state IN (?, ?) AND run_id IN (SELECT id FROM \(CleanupJournal.runs) WHERE machine = ?)",
                [
                    .text(CleanupJournal.State.moving.rawValue), .text(CleanupJournal.State.returning.rawValue),
                    .text(LibraryRoots.machine),
                ], connection)
        }
        var done: [String] = []
        for line in lines {
            let (source, destination) = (line.source, line.destination)
            let atSource = FileMove.exists(source), atDestination = FileMove.exists(destination)
            let holds = { (path: String) in FileMove.holds(path, size: line.size, hash: line.hash) }
            let forward = line.state == .moving
            // Where the file is to end up, and the other place.
            let (target, origin) = forward ? (destination, source) : (source, destination)
            let (atTarget, atOrigin) = forward ? (atDestination, atSource) : (atSource, atDestination)
            FileMove.removeName(FileMove.partial(target))
            if atTarget && holds(target) {
                if atOrigin { FileMove.removeName(origin) }
                try? FileMove.syncFolders(of: [origin, target])
                if !forward, let info = line.trashInfo { FileMove.removeName(info) }
                try writingDurably { connection in
                    if forward {
                        try Self.takeOut(image: line.image, line: line.id, connection)
                    } else {
                        try Self.putBack(line, connection)
                    }
                }
                done.append("\(forward ? "moved" : "put back") \(FileSystemPath.displayed(target)) (interrupted)")
            } else if atOrigin && !atTarget {
                if forward, let info = line.trashInfo, let recorded = Trash.recordedPath(in: info),
                    recorded == source || source.hasSuffix("/" + recorded)
                {
                    FileMove.removeName(info)
                }
                try writingDurably { connection in
                    try CleanupJournal.setState(
                        forward ? .abandoned : .moved, note: forward ? "stopped before the file moved" : nil,
                        of: line.id, connection)
                }
                done.append("left \(FileSystemPath.displayed(origin)) where it is (interrupted before it moved)")
            } else {
                let note =
                    atOrigin
                    ? "found at both \(origin) and \(target), not the same bytes: neither removed"
                    : "the photo's bytes are at neither \(origin) nor \(target)"
                try writingDurably { connection in
                    try CleanupJournal.setState(forward ? .abandoned : .moved, note: note, of: line.id, connection)
                }
                done.append(note)
            }
        }
        return done
    }

    /// Puts back the files of cleanup `run` (by default the latest with files still moved), each at its place
    /// with its rows (faces, names, people, prints), journalled as cleanups are. A file whose place is taken,
    /// or that is no longer at its destination, stays where it is and is reported.
    public func undoCleanup(run: Int64? = nil) throws(CatalogError) -> UndoReport {
        try recoverCleanup()
        let moved = CleanupJournal.State.moved.rawValue
        let found = try reading { connection in
            if let run {
                return try connection.integer("SELECT id FROM \(CleanupJournal.runs) WHERE id = ?", [.integer(run)])
            }
            return try connection.integer(
                """
                SELECT MAX(run_id) FROM \(CleanupJournal.moves) WHERE state = ? AND run_id IN \
                (SELECT id FROM \(CleanupJournal.runs) WHERE machine = ?)
                """, [.text(moved), .text(LibraryRoots.machine)])
        }
        guard let run = found else {
            throw .notFound(run.map { "cleanup run \($0)" } ?? "a cleanup with files still moved on this machine")
        }
        let lines = try reading { connection in
            try CleanupJournal.lines(where: "run_id = ? AND state = ?", [.integer(run), .text(moved)], connection)
        }
        var returned: [String] = [], refused: [CleanupPlan.LeftAlone] = []
        for start in stride(from: 0, to: lines.count, by: Self.cleanupBatch) {
            var going: [CleanupJournal.Line] = []
            for line in lines[start..<min(lines.count, start + Self.cleanupBatch)] {
                let back = FileMove.holds(line.source, size: line.size, hash: line.hash)
                if back && !FileMove.exists(line.destination) {
                    // Put back by hand (from the desktop's trash, say): only its rows are missing.
                    try writingDurably { connection in try Self.putBack(line, connection) }
                    returned.append(line.source)
                } else if FileMove.exists(line.source) {
                    refused.append(
                        .init(path: line.source, reason: "its place is taken; it stays at \(line.destination)"))
                } else if !FileMove.holds(line.destination, size: line.size, hash: line.hash) {
                    refused.append(.init(path: line.source, reason: "it is no longer at \(line.destination)"))
                } else if try reading({ connection in
                    try connection.integer("SELECT COUNT(*) FROM images WHERE path = ?", [.text(line.photo)]) ?? 0
                }) > 0 {
                    refused.append(
                        .init(path: line.source, reason: "the catalog holds another photo at its place"))
                } else {
                    going.append(line)
                }
            }
            guard !going.isEmpty else { continue }
            try writingDurably { [going] connection in
                for line in going { try CleanupJournal.setState(.returning, of: line.id, connection) }
            }
            var back: [CleanupJournal.Line] = [], failed: [(CleanupJournal.Line, String)] = []
            for line in going {
                do {
                    try FileMove.makeFolders(for: line.source)
                    try FileMove.move(line.destination, to: line.source, size: line.size, hash: line.hash)
                    if let info = line.trashInfo { FileMove.removeName(info) }
                    back.append(line)
                } catch {
                    failed.append((line, error.description))
                }
            }
            try writingDurably { [back, failed] connection in
                for line in back { try Self.putBack(line, connection) }
                for (line, reason) in failed {
                    try CleanupJournal.setState(.moved, note: reason, of: line.id, connection)
                }
            }
            returned += back.map(\.source)
            refused += failed.map { .init(path: $0.0.source, reason: $0.1) }
        }
        try writingDurably { connection in
            if try connection.integer(
                "SELECT COUNT(*) FROM \(CleanupJournal.moves) WHERE run_id = ? AND state = ?",
                [.integer(run), .text(moved)])
                == 0
            {
                try connection.execute(
                    "UPDATE \(CleanupJournal.runs) SET undone = ? WHERE id = ?",
                    [.real(Date().timeIntervalSince1970), .integer(run)])
            }
        }
        return UndoReport(run: run, returned: returned, refused: refused)
    }

    /// Every cleanup the journal holds, newest first.
    public nonisolated func cleanupRuns() throws(CatalogError) -> [CleanupRun] {
        try reading { connection in
            try connection.rows(
                """
                SELECT r.id, r.machine, r.destination, r.started, r.finished, r.undone, \
                COUNT(CASE WHEN m.state = 'moved' THEN 1 END), COUNT(CASE WHEN m.state = 'returned' THEN 1 END), \
                COUNT(CASE WHEN m.state = 'abandoned' THEN 1 END), \
                CAST(COALESCE(SUM(CASE WHEN m.state = 'moved' THEN m.size END), 0) AS bigint) \
                FROM \(CleanupJournal.runs) r LEFT JOIN \(CleanupJournal.moves) m ON m.run_id = r.id \
                GROUP BY r.id, r.machine, r.destination, r.started, r.finished, r.undone ORDER BY r.id DESC
                """, []
            ).map { row throws(CatalogError) in
                CleanupRun(
                    id: try row.get(0), machine: try row.get(1), destination: try row.get(2), started: try row.get(3),
                    finished: try row.get(4), undone: try row.get(5), moved: try row.get(6), returned: try row.get(7),
                    abandoned: try row.get(8), bytes: try row.get(9))
            }
        }
    }
}
