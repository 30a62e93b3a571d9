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
        page = Int(try request.number("page", in: 1...1_000_000) ?? 1)
        self.size = size
    }

    var offset: Int { (page - 1) * size }

    /// This page of a list of `total` items, or 404 where the list ends before it.
    func listing<Item>(_ items: [Item], total: Int) throws -> Listing<Item> {
        try check(total: total)
        return Listing(items: items, total: total, page: page, pageSize: size)
    }

    /// Refuses a page past the last of a list of `total` items (a list of none has one page, empty).
    private func check(total: Int) throws {
        let pages = Self.pages(total: total, size: size)
        guard page <= pages else {
            throw HTTPError(.notFound, message: "no page \(page): the list has \(counted(pages, "page"))")
        }
    }

    private static func pages(total: Int, size: Int) -> Int { max(1, (total + size - 1) / size) }

    /// What a page shows below a list: where it is and the links to the pages beside it.
    struct Links: Sendable, Encodable {
        let page: Int
        let pages: Int
        let previous: String?
        let next: String?
        /// Whether there is more than one page (a stored property: templates see only those).
        let isNeeded: Bool
    }

    /// The links for a list of `total` items at `path`, keeping the request's other query parameters; 404
    /// where the list ends before this page.
    func links(total: Int, path: String, query: [(String, String)] = []) throws -> Links {
        try check(total: total)
        let pages = Self.pages(total: total, size: size)
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
        let given = context.parameters.get(name) ?? ""
        guard let id = Self.plainNumber(given), id > 0 else {
            throw HTTPError(.notFound, message: "no such \(name == "id" ? "item" : name): \(given)")
        }
        return id
    }

    /// The query parameter `name` as a whole number within `range`, written plainly (digits alone, no sign,
    /// no leading zero: one number, one spelling); nil where the request has none, 400 for anything else.
    func number(_ name: String, in range: ClosedRange<Int64>) throws -> Int64? {
        try uri.queryParameters.get(name).map { given in
            guard let number = Self.plainNumber(given), range.contains(number) else {
                throw HTTPError(
                    .badRequest, message: "\(name) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
    }

    /// The query parameter `name` as `true` or `false` (false where the request has none); 400 for anything else.
    func flag(_ name: String) throws -> Bool {
        switch uri.queryParameters.get(name) {
        case nil, "false": return false
        case "true": return true
        default: throw HTTPError(.badRequest, message: "\(name) must be true or false")
        }
    }

    /// A number written as digits alone, without a sign or a leading zero.
    private static func plainNumber(_ text: String) -> Int64? {
        Int64(text).flatMap { String($0) == text ? $0 : nil }
    }
}

// The catalog's records the API returns as they are.
extension Person: ResponseEncodable {}
extension PersonSuggestions: ResponseEncodable {}
extension PhotoFace: ResponseEncodable {}
extension CleanupPlan: ResponseEncodable {}
extension CleanupReport: ResponseEncodable {}
extension UndoReport: ResponseEncodable {}
