import ArgumentParser
import Catalog
import Foundation
import ImageKernels

/// `cbir duplicates --apply`, `--undo` and `--runs`: moving the copies aside, putting them back, and the
/// journal of runs.
extension DuplicatesCommand {
    /// Where --apply sends the copies.
    private var destination: CleanupDestination {
        apply.count == 2 ? .folder(Catalog.standardisedPath(apply[1])) : .trash
    }

    /// Says what moving the groups' other copies would do, or (with --yes) does it.
    func cleanUp(_ groups: [DuplicateGroup], in store: Catalog) async throws {
        for line in try await store.recoverCleanup() { note("an interrupted run: \(line)") }
        let keeping = KeeperChoice(paths: Set(keep), folders: keepIn, oldest: keepOldest)
        let plan = try store.cleanupPlan(for: groups, keeping: keeping, to: destination)
        let place: String
        switch destination {
        case .trash: place = "the trash"
        case .folder(let folder): place = FileSystemPath.displayed(folder)
        }
        let size = String(format: "%.1f MB", Double(plan.bytes) / 1e6)
        guard yes else {
            if json { return try printJSON(plan) }
            for move in plan.moves {
                print(
                    "would move " + FileSystemPath.displayed(move.path) + " to "
                        + FileSystemPath.displayed(move.destination)
                        + " (keeping " + FileSystemPath.displayed(move.keeper) + ")")
            }
            report(plan.leftAlone)
            print(
                "would move \(counted(plan.moves.count, "copy", "copies")) (\(size)) to \(place); nothing moved yet: "
                    + "--yes moves them")
            return
        }
        let done = try await store.applyCleanup(plan, to: destination)
        if json { return try printJSON(done) }
        for move in done.moved {
            print("moved " + FileSystemPath.displayed(move.path) + " to " + FileSystemPath.displayed(move.destination))
        }
        report(done.leftAlone)
        let moved = String(format: "%.1f MB", Double(done.moved.reduce(0) { $0 + $1.bytes }) / 1e6)
        print(
            "moved \(counted(done.moved.count, "copy", "copies")) (\(moved)) to \(place): run \(done.run) "
                + "(`cbir duplicates --undo \(done.run) --db \(database.shown)` puts them back)")
    }

    /// --undo and --runs.
    func journal() async throws {
        let store = try database.open(access: undo ? .readWrite : .readOnly)
        if runs {
            let list = try store.cleanupRuns()
            if json { return try printJSON(list) }
            if list.isEmpty { print("no run has moved copies yet") }
            for run in list {
                let when = Date(timeIntervalSince1970: run.started).formatted(.iso8601)
                let state =
                    run.finished == nil ? ", stopped before its end" : run.undone != nil ? ", undone" : ""
                print(
                    "run \(run.id)  \(when)  \(run.destination)  \(run.moved) moved ("
                        + String(format: "%.1f MB", Double(run.bytes) / 1e6)
                        + "), \(run.returned) put back, \(run.abandoned) given up\(state)")
            }
            return
        }
        for line in try await store.recoverCleanup() { note("an interrupted run: \(line)") }
        let done = try await store.undoCleanup(run: run)
        if json { return try printJSON(done) }
        for path in done.returned { print("put back " + FileSystemPath.displayed(path)) }
        for refused in done.refused {
            print(
                "left " + FileSystemPath.displayed(refused.path) + " out: " + FileSystemPath.displayed(refused.reason))
        }
        print(
            "put back \(counted(done.returned.count, "file")) of run \(done.run)"
                + (done.refused.isEmpty ? "" : "; \(done.refused.count) could not be"))
        if !done.refused.isEmpty { throw ExitCode(1) }
    }

    /// The copies left where they are, on stderr.
    private func report(_ leftAlone: [CleanupPlan.LeftAlone]) {
        guard !leftAlone.isEmpty else { return }
        note(
            "\(counted(leftAlone.count, "copy", "copies")) left alone:\n"
                + leftAlone.prefix(20).map {
                    "  " + FileSystemPath.displayed($0.path) + ": " + FileSystemPath.displayed($0.reason) + "\n"
                }
                .joined() + (leftAlone.count > 20 ? "  and \(leftAlone.count - 20) more\n" : ""))
    }
}
