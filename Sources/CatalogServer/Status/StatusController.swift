import Catalog
import Foundation
import Hummingbird

/// The database's state: its counts and the last indexing run, on the status page and at `/api/stats`.
struct StatusController<Context: RequestContext>: Sendable {
    let service: CatalogService

    func addRoutes(to router: Router<Context>) {
        router.get("/") { _, _ in Response.redirect(to: "/people", type: .found) }
        router.get("/status", use: statusPage)
        router.get("/api/stats", use: stats)
    }

    struct Stats: ResponseEncodable, Sendable {
        let database: String
        let writable: Bool
        let images, failedImages, faces, labelledFaces, people, printedImages: Int
        let lastRun: IndexingRecord?
    }

    @Sendable func stats(_ request: Request, context: Context) throws -> Stats {
        let counts = try service.catalog.statistics()
        return Stats(
            database: service.catalog.path, writable: service.isWritable, images: counts.images,
            failedImages: counts.failedImages, faces: counts.faces, labelledFaces: counts.labelledFaces,
            people: try service.people().count, printedImages: counts.printedImages,
            lastRun: try service.catalog.lastIndexingRun())
    }

    private struct RunContent: Encodable {
        let folder: String
        let started: String
        let finished: String
        let indexed, unchanged, failed, upgraded, removed: Int
    }

    private struct StatusContent: Encodable {
        let stats: Stats
        let run: RunContent?
        let hint: String?
    }

    @Sendable func statusPage(_ request: Request, context: Context) throws -> Page {
        let stats = try stats(request, context: context)
        return Page(
            template: "status", title: "Status",
            content: StatusContent(
                stats: stats,
                run: stats.lastRun.map {
                    RunContent(
                        folder: $0.folder, started: Page.time($0.started),
                        finished: $0.finished.map(Page.time) ?? "not finished (running, or stopped)",
                        indexed: $0.indexed,
                        unchanged: $0.unchanged, failed: $0.failed, upgraded: $0.upgraded, removed: $0.removed)
                }, hint: stats.printedImages < stats.images ? service.printingHint : nil))
    }
}
