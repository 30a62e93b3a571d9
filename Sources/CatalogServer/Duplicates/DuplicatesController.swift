import Catalog
import Foundation
import Hummingbird
import PhotoSimilarity

/// Duplicates: the groups of copies among the photos, each with the copy to keep and the bytes the others
/// take, on a page and at `/api/duplicates`.
struct DuplicatesController<Context: RequestContext>: Sendable {
    let service: CatalogService
    static var pageSize: Int { 30 }

    func addRoutes(to router: Router<Context>) {
        router.get("/duplicates", use: duplicatesPage)
        router.get("/api/duplicates", use: list)
    }

    struct Groups: ResponseEncodable, Sendable {
        /// "copies", or "shots" (other shots of one scene: `?similar=true`).
        let kind: String
        /// The cosine distance of prints within which photos were compared (copies) or grouped (shots).
        let threshold: Float
        /// Photos with prints: none means no group can be found yet.
        let printedPhotos: Int
        let hint: String?
        /// What deleting every copy but the kept one would free, over all groups.
        let bytes: Int
        let groups: Listing<DuplicateGroup>
        /// Printed photos left out of every group: their files changed or went since they were indexed.
        let stale: [StalePhoto]
    }

    /// The groups of copies, or with `?similar=true` of other shots of one scene (within `?threshold=`, a cosine
    /// distance).
    @Sendable func list(_ request: Request, context: Context) throws -> Groups {
        let paging = try Paging(request, size: Self.pageSize)
        let kind = try Self.kind(request)
        let printed = try service.catalog.statistics().printedImages
        let (groups, stale) = printed > 0 || kind == .copies ? try service.duplicateGroups(kind) : ([], [])
        let threshold: Float =
            switch kind {
            case .copies: DuplicateGroups.printThreshold
            case .shots(let threshold): threshold
            }
        return Groups(
            kind: kind == .copies ? "copies" : "shots", threshold: threshold, printedPhotos: printed,
            hint: printed > 0
                ? nil
                : "No photo has a print yet, so only byte-identical copies are found: `cbir index <folder> --db "
                    + "\(service.catalog.path)` makes prints, which find the other copies and shots.",
            bytes: groups.reduce(0) { $0 + $1.bytes },
            groups: try paging.listing(Array(groups.dropFirst(paging.offset).prefix(paging.size)), total: groups.count),
            stale: stale)
    }

    /// What the request asks to group: copies, or other shots (`?similar=true`, at `?threshold=` or the default).
    static func kind(_ request: Request) throws -> DuplicateKind {
        let given = request.uri.queryParameters.get("threshold")
        guard given.map({ Float($0) != nil }) ?? true else {
            throw HTTPError(.badRequest, message: "threshold must be a cosine distance from 0 to 2")
        }
        return try Self.kind(similar: try request.flag("similar"), threshold: given.flatMap { Float($0) })
    }

    /// Copies, or with `similar` other shots within `threshold` (a cosine distance) or the default.
    static func kind(similar: Bool, threshold: Float?) throws -> DuplicateKind {
        guard let threshold else { return similar ? .shots(threshold: DuplicateGroups.similarThreshold) : .copies }
        guard similar else {
            throw HTTPError(.badRequest, message: "threshold is --similar's distance: give similar=true")
        }
        guard threshold.isFinite, (0...2).contains(threshold) else {
            throw HTTPError(.badRequest, message: "threshold must be a cosine distance from 0 to 2")
        }
        return .shots(threshold: threshold)
    }

    private struct Copy: Encodable {
        /// The group's place on the page: what the copy's "keep" choice is named by.
        let group: Int
        let id: Int64
        let name: String
        let distance: String
        let keep: Bool
    }

    private struct GroupContent: Encodable {
        let copies: [Copy]
        let megabytes: String
        /// What the photos beside the kept one are: "copies", or "other shots".
        let others: String
    }

    private struct DuplicatesContent: Encodable {
        let groups: [GroupContent]
        /// "3 groups".
        let total: String
        /// What the page says of photos left out for their files, if any were.
        let staleNote: String?
        let megabytes: String
        let similar: Bool
        let others: String
        let hint: String?
        let pager: Paging.Links
        /// Whether the page offers to move the copies (a database that can be written).
        let isWritable: Bool
        let hasGroups: Bool
        /// The query that names these groups ("?similar=true", or none), for the cleanup's routes.
        let query: String
    }

    @Sendable func duplicatesPage(_ request: Request, context: Context) throws -> Page {
        let found = try list(request, context: context)
        let similar = try request.flag("similar"), others = similar ? "other shots" : "copies"
        let paging = try Paging(request, size: Self.pageSize)
        var query: [(String, String)] = similar ? [("similar", "true")] : []
        if let threshold = request.uri.queryParameters.get("threshold") { query.append(("threshold", threshold)) }
        var components = URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }
        return Page(
            template: "duplicates", title: "Duplicates",
            content: DuplicatesContent(
                groups: found.groups.items.enumerated().map { number, group in
                    GroupContent(
                        copies: group.photos.enumerated().map { index, photo in
                            Copy(
                                group: number, id: photo.image, name: PhotosController<Context>.name(photo.path),
                                distance: String(format: "%.3f", photo.distance), keep: index == 0)
                        }, megabytes: megabytes(group.bytes), others: others)
                }, total: counted(found.groups.total, "group"),
                staleNote: found.stale.isEmpty
                    ? nil
                    : "\(counted(found.stale.count, "photo")) \(found.stale.count == 1 ? "is" : "are") left out: "
                        + "\(found.stale.count == 1 ? "its file" : "their files") changed or went since indexing "
                        + "(`cbir index` brings the catalog up to date).", megabytes: megabytes(found.bytes),
                similar: similar, others: others, hint: found.hint,
                pager: try paging.links(total: found.groups.total, path: "/duplicates", query: query),
                isWritable: service.isWritable, hasGroups: !found.groups.items.isEmpty,
                query: query.isEmpty ? "" : "?" + (components.percentEncodedQuery ?? "")))
    }
}
