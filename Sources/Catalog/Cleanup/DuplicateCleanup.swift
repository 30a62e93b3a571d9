import Foundation
import ImageKernels

/// Where a cleanup moves the copies it does not keep.
public enum CleanupDestination: Sendable, Equatable {
    /// The user's trash (`Trash`: the freedesktop.org layout), where a desktop's file manager lists and
    /// restores them.
    case trash
    /// Under a folder (absolute), each copy at its path inside the folder it was indexed from.
    case folder(String)
}

/// What a cleanup would do, for the user to read before it does it: which copies move where, each with the copy
/// kept in its place, and which copies are left alone and why.
public struct CleanupPlan: Sendable, Codable, Equatable {
    public struct Move: Sendable, Codable, Equatable {
        /// The copy's image id and path.
        public let image: Int64
        public let path: String
        /// The copy of its group that stays.
        public let keeper: String
        public let keeperImage: Int64
        public let bytes: Int
        /// Where it goes: its path under the folder, or the trash's folder.
        public let destination: String
    }

    /// A copy left where it is, and why.
    public struct LeftAlone: Sendable, Codable, Equatable {
        public let path: String
        public let reason: String
    }

    public let moves: [Move]
    public let leftAlone: [LeftAlone]
    /// The bytes the moves take out of the library.
    public var bytes: Int { moves.reduce(0) { $0 + $1.bytes } }
}

/// What a cleanup did: its run (``Catalog/undoCleanup(run:)`` puts it back), the copies moved, with where each
/// went, and those left alone.
public struct CleanupReport: Sendable, Codable, Equatable {
    public let run: Int64
    public let moved: [CleanupPlan.Move]
    public let leftAlone: [CleanupPlan.LeftAlone]
}

/// What an undo did: the files put back and those it could not put back, with why.
public struct UndoReport: Sendable, Codable, Equatable {
    public let run: Int64
    public let returned: [String]
    public let refused: [CleanupPlan.LeftAlone]
}

/// A cleanup as the journal keeps it.
public struct CleanupRun: Sendable, Codable, Equatable {
    public let id: Int64
    public let machine: String
    /// "trash", or the folder the copies went under.
    public let destination: String
    /// Seconds since 1970; `finished` nil for a run that stopped (recovered by the next), `undone` nil until
    /// every file it moved is back.
    public let started: Double
    public let finished: Double?
    public let undone: Double?
    /// Its files still moved, put back, and given up before they moved.
    public let moved, returned, abandoned: Int
    /// The bytes its files still moved take.
    public let bytes: Int
}

extension Catalog {
    /// How many copies one journal transaction covers.
    static let cleanupBatch = 64

    /// What moving the copies of `groups` to `destination` would do, keeping in each group the copy `keeping`
    /// chooses. A group whose keeper changed or went since it was indexed is left alone whole (never is the
    /// last copy moved), as is each copy that changed, and each whose place under a folder is taken.
    public nonisolated func cleanupPlan(
        for groups: [DuplicateGroup], keeping: KeeperChoice = KeeperChoice(), to destination: CleanupDestination
    ) throws(CatalogError) -> CleanupPlan {
        let records = try records(of: groups.flatMap { $0.photos.map(\.image) })
        let named = Set(groups.flatMap { $0.photos.map(\.path) })
        if let unknown = keeping.paths.subtracting(named).sorted().first {
            throw .invalidQuery("\(FileSystemPath.displayed(unknown)) is in none of the groups: --keep names a copy")
        }
        let folders = destination == .trash ? [] : try indexedFolders()
        var moves: [CleanupPlan.Move] = [], leftAlone: [CleanupPlan.LeftAlone] = [], taken: Set<String> = []
        for group in groups {
            let keeper = keeping.keeper(of: group) { member in
                records[member.image].flatMap { Self.dateTaken(of: $0) ?? Date(timeIntervalSince1970: $0.modified) }
            }
            guard let keeper, let kept = records[keeper.image] else { continue }
            if let stale = IndexedFile.staleness(of: kept) {
                for member in group.photos where member != keeper {
                    leftAlone.append(.init(path: member.path, reason: "the copy to keep, \(keeper.path), is \(stale)"))
                }
                continue
            }
            for member in group.photos where member != keeper {
                guard let record = records[member.image] else { continue }
                if let stale = IndexedFile.staleness(of: record) {
                    leftAlone.append(.init(path: member.path, reason: stale.description))
                    continue
                }
                let place: String
                switch destination {
                case .trash:
                    do { place = try Trash.for(member.path).folder } catch {
                        leftAlone.append(.init(path: member.path, reason: error.description))
                        continue
                    }
                case .folder(let folder):
                    place = Self.place(of: storedPath(member.path), under: folder, indexedFrom: folders)
                    guard !FileMove.exists(place), taken.insert(place).inserted else {
                        leftAlone.append(.init(path: member.path, reason: "\(place) is already there"))
                        continue
                    }
                }
                moves.append(
                    .init(
                        image: member.image, path: member.path, keeper: keeper.path, keeperImage: keeper.image,
                        bytes: Int(record.size), destination: place))
            }
        }
        return CleanupPlan(moves: moves, leftAlone: leftAlone)
    }

    /// The folders indexing started from, stored paths, outermost first.
    private nonisolated func indexedFolders() throws(CatalogError) -> [String] {
        try reading { connection in
            try connection.rows("SELECT DISTINCT folder FROM \(IndexingHistory.table)", []).map {
                row throws(CatalogError) -> String in try row.get(0)
            }
        }.sorted { $0.count < $1.count }
    }

    /// Where a photo (a stored path) goes under `folder`: at its path inside the outermost folder it was
    /// indexed from, else at its whole path.
    static func place(of photo: String, under folder: String, indexedFrom folders: [String]) -> String {
        let root = folders.first { photo.hasPrefix(folderPrefix($0)) }
        let inside =
            root.map { String(photo.dropFirst(folderPrefix($0).count)) }
            ?? String(photo.drop { $0 != "/" }.drop { $0 == "/" })
        return Catalog.standardisedPath(folder) + "/" + inside
    }

    /// Moves the plan's copies, `cleanupBatch` at a time: each copy checked again to be the photo indexed (and its
    /// keeper too), journalled durably, moved (`FileMove`; into the trash with its `.trashinfo` written first),
    /// then its rows taken out of the catalog into the journal, in one transaction with the line marked done.
    /// A run killed at any point is completed or reversed by the next call of any cleanup (``recoverCleanup()``).
    public func applyCleanup(_ plan: CleanupPlan, to destination: CleanupDestination) throws(CatalogError)
        -> CleanupReport
    {
        _ = try recoverCleanup()
        let shown: String
        switch destination {
        case .trash: shown = "trash"
        case .folder(let folder): shown = Catalog.standardisedPath(folder)
        }
        let run = try writingDurably { connection in
            try connection.integer(
                "INSERT INTO \(CleanupJournal.runs) (machine, destination, started) VALUES (?, ?, ?) RETURNING id",
                [.text(LibraryRoots.machine), .text(shown), .real(Date().timeIntervalSince1970)]) ?? -1
        }
        var moved: [CleanupPlan.Move] = [], leftAlone = plan.leftAlone
        for start in stride(from: 0, to: plan.moves.count, by: Self.cleanupBatch) {
            let batch = plan.moves[start..<min(plan.moves.count, start + Self.cleanupBatch)]
            let records = try records(of: batch.flatMap { [$0.image, $0.keeperImage] })
            var lines:
                [(move: CleanupPlan.Move, record: ImageRecord, to: String, info: (trash: Trash, path: String)?)] = []
            var named: Set<String> = []
            for move in batch {
                guard let record = records[move.image], record.path == move.path, let keeper = records[move.keeperImage]
                else {
                    leftAlone.append(.init(path: move.path, reason: "no longer in the catalog as planned"))
                    continue
                }
                if let stale = IndexedFile.staleness(of: keeper) ?? IndexedFile.staleness(of: record) {
                    leftAlone.append(.init(path: move.path, reason: "it or its keeper is \(stale)"))
                    continue
                }
                do throws(FileMove.Failure) {
                    switch destination {
                    case .trash:
                        let trash = try Trash.for(move.path)
                        let name = try trash.freeName(for: move.path, excluding: named)
                        named.insert(name.file)
                        lines.append((move, record, name.file, (trash, name.info)))
                    case .folder:
                        guard !FileMove.exists(move.destination) else {
                            throw FileMove.Failure(description: "\(move.destination) is already there")
                        }
                        lines.append((move, record, move.destination, nil))
                    }
                } catch {
                    leftAlone.append(.init(path: move.path, reason: error.description))
                }
            }
            guard !lines.isEmpty else { continue }
            let stored = lines.map { storedPath($0.move.path) }
            let ids = try writingDurably { [lines] connection in
                try zip(lines, stored).map { line, photo in
                    try connection.integer(
                        """
                        INSERT INTO \(CleanupJournal.moves) (run_id, image_id, photo, source, destination, trash_info, \
                        keeper, size, hash, state, rows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                        """,
                        [
                            .integer(run), .integer(line.move.image), .text(photo), .text(line.move.path),
                            .text(line.to), line.info.map { .text($0.path) } ?? .null, .text(line.move.keeper),
                            .integer(line.record.size), .text(line.record.hash),
                            .text(CleanupJournal.State.moving.rawValue), .blob(Data()),
                        ]) ?? -1
                }
            }
            var outcomes: [(line: Int64, image: Int64, failure: String?)] = []
            for (line, id) in zip(lines, ids) {
                let failure = Self.move(line.move.path, to: line.to, trashInfo: line.info, record: line.record)
                outcomes.append((id, line.move.image, failure))
                if let failure {
                    leftAlone.append(.init(path: line.move.path, reason: failure))
                } else {
                    moved.append(
                        .init(
                            image: line.move.image, path: line.move.path, keeper: line.move.keeper,
                            keeperImage: line.move.keeperImage, bytes: line.move.bytes, destination: line.to))
                }
            }
            try writingDurably { [outcomes] connection in
                for outcome in outcomes {
                    if let failure = outcome.failure {
                        try CleanupJournal.setState(.abandoned, note: failure, of: outcome.line, connection)
                    } else {
                        try Self.takeOut(image: outcome.image, line: outcome.line, connection)
                    }
                }
            }
        }
        try writingDurably { connection in
            try connection.execute(
                "UPDATE \(CleanupJournal.runs) SET finished = ? WHERE id = ?",
                [.real(Date().timeIntervalSince1970), .integer(run)])
        }
        return CleanupReport(run: run, moved: moved, leftAlone: leftAlone)
    }

    /// Moves a journalled file to `destination` (into the trash: its `.trashinfo` written first); returns why
    /// it did not move, having put back what it had done, or nil.
    static func move(
        _ source: String, to destination: String, trashInfo info: (trash: Trash, path: String)?, record: ImageRecord
    ) -> String? {
        var wroteInfo = false
        do {
            if let info {
                try info.trash.writeInfo(info.path, for: source)
                wroteInfo = true
            } else {
                try FileMove.makeFolders(for: destination)
            }
            try FileMove.move(source, to: destination, size: record.size, hash: record.hash)
            return nil
        } catch {
            if !FileMove.exists(source), FileMove.holds(destination, size: record.size, hash: record.hash) {
                return nil  // moved; only a sync afterwards failed
            }
            if FileMove.sameFile(source, destination) { FileMove.removeName(destination) }
            if wroteInfo, let info { FileMove.removeName(info.path) }
            return error.description
        }
    }

    /// Moves an image's rows into its journal line and marks the line moved: the photo leaves every search and
    /// page at once.
    static func takeOut(image: Int64, line: Int64, _ connection: any StoreConnection) throws {
        let rows = try PhotoRows.of(image: image, connection)
        try connection.execute(
            "UPDATE \(CleanupJournal.moves) SET rows = ?, state = ?, note = NULL WHERE id = ?",
            [.blob(try rows.encoded()), .text(CleanupJournal.State.moved.rawValue), .integer(line)])
        try connection.execute("DELETE FROM images WHERE id = ?", [.integer(image)])
        try dropEmptyPeople(connection)
    }

    /// Puts a journal line's rows back (unless the catalog holds a photo at its path again) and marks it
    /// returned.
    static func putBack(_ line: CleanupJournal.Line, _ connection: any StoreConnection) throws {
        let held = try connection.integer("SELECT COUNT(*) FROM images WHERE path = ?", [.text(line.photo)]) ?? 0
        var note: String?
        if held == 0,
            let data: Data = try connection.rows(
                "SELECT rows FROM \(CleanupJournal.moves) WHERE id = ?", [.integer(line.id)]
            ).first?.get(0), !data.isEmpty
        {
            _ = try PhotoRows.decoded(data).restore(connection)
        } else if held > 0 {
            note = "the catalog holds the photo at its place again: its rows were not put back"
        }
        try CleanupJournal.setState(.returned, note: note, of: line.id, connection)
    }
}
