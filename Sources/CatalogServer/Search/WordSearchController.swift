import Catalog
import Foundation
import Hummingbird
import PhotoSimilarity

/// Photos found by words: `GET /api/search?q=dog` (and the search page, `GET /search?q=`, from the box on
/// every page) ranks the indexed photos by how likely the classifier found that they show what the words name
/// (`WordClasses`: WordNet's nouns to ImageNet's classes), as `cbir search` does.
struct WordSearchController<Context: RequestContext>: Sendable {
    let service: CatalogService
    /// Photos listed by default, and at most.
    static var defaultCount: Int { 60 }
    static var maximumCount: Int64 { 1000 }

    func addRoutes(to router: Router<Context>) {
        router.get("/api/search", use: search)
    }

    /// What the words found: the nouns as read, what to know of how (the nearest classes taken for a word
    /// with none under it), and the photos, best first.
    struct Result: ResponseEncodable, Sendable {
        let words: [String]
        let notes: [String]
        let results: [Found]
    }

    struct Found: Codable, Sendable {
        let id: Int64
        let path: String
        let score: Float
    }

    @Sendable func search(_ request: Request, context: Context) throws -> Result {
        try result(of: request)
    }

    /// The photos for the request's `q` (words separated by spaces) and `top`; 400 for no words or words
    /// WordNet does not know, with the reason.
    func result(of request: Request) throws -> Result {
        let text = request.uri.queryParameters.get("q") ?? ""
        let top = try request.number("top", in: 1...Self.maximumCount).map { Int($0) } ?? Self.defaultCount
        let vocabulary = try service.wordClasses
        let query: WordQuery
        do { query = try vocabulary.query([text]) } catch { throw HTTPError(.badRequest, message: error.description) }
        let found = try service.catalog.photos(showing: query, top: top)
        return Result(
            words: query.terms.map(\.noun), notes: try vocabulary.notes(on: query),
            results: found.map { Found(id: $0.image, path: $0.path, score: $0.score) })
    }
}
