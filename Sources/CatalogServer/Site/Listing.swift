import Catalog
import Foundation
import Hummingbird

/// One page of a long list, as the API returns it: the items, how many there are in all, and where this
/// page lies (pages count from 1).
struct Listing<Item: Encodable & Sendable>: ResponseEncodable, Sendable {
    let items: [Item]
    let total: Int
    let page: Int
    let pageSize: Int
}

/// Which page of a list a request asks for (`?page=`, from 1), and the links between pages.
struct Paging: Sendable {
    let page: Int
    let size: Int

    /// The page the request names, or the first; a page that is not a positive number is a bad request.
    init(_ request: Request, size: Int) throws {
        let given = request.uri.queryParameters.get("page")
        guard let page = given.map({ Int($0) }) ?? 1, page >= 1, page <= 1_000_000 else {
            throw HTTPError(.badRequest, message: "page must be a number from 1")
        }
        self.page = page
        self.size = size
    }

    var offset: Int { (page - 1) * size }

    func listing<Item>(_ items: [Item], total: Int) -> Listing<Item> {
        Listing(items: items, total: total, page: page, pageSize: size)
    }

    /// What a page shows below a list: where it is and the links to the pages beside it.
    struct Links: Sendable, Encodable {
        let page: Int
        let pages: Int
        let previous: String?
        let next: String?
        /// Whether there is more than one page (a stored property: templates see only those).
        let isNeeded: Bool
    }

    /// The links for a list of `total` items at `path`, keeping the request's other query parameters.
    func links(total: Int, path: String, query: [(String, String)] = []) -> Links {
        let pages = max(1, (total + size - 1) / size)
        func link(_ page: Int) -> String? {
            guard (1...pages).contains(page) else { return nil }
            var components = URLComponents()
            components.path = path
            components.queryItems = (query + [("page", String(page))]).map { URLQueryItem(name: $0.0, value: $0.1) }
            return components.string
        }
        return Links(page: page, pages: pages, previous: link(page - 1), next: link(page + 1), isNeeded: pages > 1)
    }
}

extension Request {
    /// The path parameter `name` as an id; anything else is 404, as an unknown id is.
    func id(in context: some RequestContext, _ name: String = "id") throws -> Int64 {
        guard let id = context.parameters.get(name, as: Int64.self), id > 0 else {
            throw HTTPError(
                .notFound, message: "no such \(name == "id" ? "item" : name): \(context.parameters.get(name) ?? "")")
        }
        return id
    }
}

// The catalog's records the API returns as they are.
extension Person: ResponseEncodable {}
extension PhotoFace: ResponseEncodable {}
