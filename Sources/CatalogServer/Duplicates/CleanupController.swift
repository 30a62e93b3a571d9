import Catalog
import Foundation
import Hummingbird
import PhotoSimilarity

/// Cleaning up duplicates from the page: the groups a person chose (the copy to keep in each) planned and then
/// moved to the trash (`Catalog.applyCleanup(_:to:)`, journalled and undoable), and the page of past runs,
/// each with its undo. The changes are POST routes, guarded as every change is (``AccessControl``).
struct CleanupController<Context: RequestContext>: Sendable {
    let service: CatalogService

    func addRoutes(to router: Router<Context>) {
        router.post("/api/duplicates/plan", use: plan)
        router.post("/api/duplicates/cleanup", use: cleanUp)
        router.get("/api/duplicates/runs", use: runs)
        router.post("/api/duplicates/runs/:id/undo", use: undo)
        router.get("/duplicates/runs", use: runsPage)
    }

    /// The groups a page chose, among those `GET /api/duplicates` lists with the same query: each by the copy to
    /// keep and the others, which move. The others are named so that a group that changed since the page showed
    /// it (indexing ran meanwhile) is refused rather than cleaned up unseen.
    struct Choices: Decodable {
        struct Group: Decodable {
            let keep: Int64
            let move: [Int64]
        }
        let groups: [Group]
    }

    /// What moving the chosen groups' other copies to the trash would do: the moves and the copies left alone.
    @Sendable func plan(_ request: Request, context: Context) async throws -> CleanupPlan {
        let (groups, keeping) = try await chosen(request, context: context)
        return try service.catalog.cleanupPlan(for: groups, keeping: keeping, to: .trash)
    }

    /// Moves the chosen groups' other copies to the trash; returns the run, what moved and what was left alone.
    @Sendable func cleanUp(_ request: Request, context: Context) async throws -> CleanupReport {
        let (groups, keeping) = try await chosen(request, context: context)
        try service.requireWritable()
        let plan = try service.catalog.cleanupPlan(for: groups, keeping: keeping, to: .trash)
        return try await service.catalog.applyCleanup(plan, to: .trash)
    }

    /// Every cleanup run the journal holds, newest first.
    @Sendable func runs(_ request: Request, context: Context) throws -> [CleanupRun] {
        try service.catalog.cleanupRuns()
    }

    /// Puts back the files of a run with their rows; those whose place is taken stay and are listed.
    @Sendable func undo(_ request: Request, context: Context) async throws -> UndoReport {
        let run = try request.id(in: context)
        try service.requireWritable()
        return try await service.catalog.undoCleanup(run: run)
    }

    /// The request's groups, each one of today's groups whole, and the copies to keep in them.
    private func chosen(_ request: Request, context: Context) async throws -> (
        groups: [DuplicateGroup], keeping: KeeperChoice
    ) {
        let kind = try DuplicatesController<Context>.kind(request)
        let choices = try await request.decode(as: Choices.self, context: context)
        guard !choices.groups.isEmpty else { throw HTTPError(.badRequest, message: "no group is chosen") }
        let groups = try service.duplicateGroups(kind).groups
        var home: [Int64: Int] = [:]
        for (index, group) in groups.enumerated() {
            for photo in group.photos { home[photo.image] = index }
        }
        var chosen: [DuplicateGroup] = [], kept: Set<String> = [], taken: Set<Int> = []
        for choice in choices.groups {
            let named = Set([choice.keep] + choice.move)
            guard let index = home[choice.keep],
                let keeper = groups[index].photos.first(where: { $0.image == choice.keep }),
                named.count == choice.move.count + 1, Set(groups[index].photos.map(\.image)) == named
            else {
                throw HTTPError(
                    .conflict,
                    message: "photo \(choice.keep) and \(counted(choice.move.count, "other")) are not one group now: "
                        + "the groups changed since the page showed them (reload it)")
            }
            guard taken.insert(index).inserted else {
                throw HTTPError(.badRequest, message: "the group of photo \(choice.keep) is given twice")
            }
            chosen.append(groups[index])
            kept.insert(keeper.path)
        }
        return (chosen, KeeperChoice(paths: kept))
    }

    private struct RunCard: Encodable {
        let id: Int64
        let started: String
        let place: String
        /// "3 copies (1.2 MB) in the trash", "2 put back", "1 given up": what the run did, as the page says it.
        let moved: String
        let returned: String?
        let abandoned: String?
        let state: String?
        let canUndo: Bool
        let isLatest: Bool
    }

    private struct RunsContent: Encodable {
        let runs: [RunCard]
        let isWritable: Bool
    }

    @Sendable func runsPage(_ request: Request, context: Context) throws -> Page {
        let runs = try service.catalog.cleanupRuns()
        let latest = try request.number("run", in: 1...Int64.max)
        return Page(
            template: "cleanup-runs", title: "Cleanups",
            content: RunsContent(
                runs: runs.map { run in
                    let place = run.destination == "trash" ? "the trash" : run.destination
                    return RunCard(
                        id: run.id, started: Page.time(run.started), place: place,
                        moved: "\(counted(run.moved, "copy", "copies")) ("
                            + String(format: "%.1f MB", Double(run.bytes) / 1e6) + ") in \(place)",
                        returned: run.returned > 0 ? "\(run.returned) put back" : nil,
                        abandoned: run.abandoned > 0 ? "\(run.abandoned) left where they were" : nil,
                        state: run.finished == nil
                            ? "stopped before its end (the next cleanup or undo completes or reverses it)"
                            : run.undone != nil ? "undone" : nil,
                        canUndo: service.isWritable && run.moved > 0, isLatest: run.id == latest)
                }, isWritable: service.isWritable))
    }
}
