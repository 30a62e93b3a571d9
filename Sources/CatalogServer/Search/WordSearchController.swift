import Catalog
import Foundation
import Hummingbird
import PhotoSimilarity

/// Photos found by words: `GET /api/search?q=dog` ranks the indexed photos by how likely the classifier found
/// that they show what the words name (`WordClasses`: WordNet's nouns to ImageNet's classes), as `cbir search`
/// does; the search page (`GET /search?q=`, from the box on every page) shows the same
/// (``CatalogService/photosFound(by:)``).
struct WordSearchController<Context: RequestContext>: Sendable {
    let service: CatalogService

    func addRoutes(to router: Router<Context>) {
        router.get("/api/search", use: search)
    }

    @Sendable func search(_ request: Request, context: Context) throws -> WordSearchResult {
        try service.photosFound(by: request)
    }
}

/// What words found: the nouns as read, what to know of how (the classes near a word with none under it),
/// and the photos, best first.
struct WordSearchResult: ResponseEncodable, Sendable {
    struct Found: Codable, Sendable {
        let id: Int64
        let path: String
        let score: Float
    }

    let words: [String]
    let notes: [String]
    let results: [Found]
}

extension CatalogService {
    /// Photos listed by default, and at most.
    static var wordSearchCount: Int { 60 }
    static var maximumWordSearchCount: Int64 { 1000 }

    /// The photos for the request's `q` (words separated by spaces) and `top`; 400 for no words or words
    /// WordNet does not know, with the reason.
    func photosFound(by request: Request) throws -> WordSearchResult {
        let text = request.uri.queryParameters.get("q") ?? ""
        let top =
            try request.number("top", in: 1...Self.maximumWordSearchCount).map { Int($0) } ?? Self.wordSearchCount
        let vocabulary = try wordClasses
        let query: WordQuery
        do { query = try vocabulary.query([text]) } catch { throw HTTPError(.badRequest, message: error.description) }
        let found = try catalog.photos(showing: query, top: top)
        return WordSearchResult(
            words: query.terms.map(\.noun), notes: try vocabulary.notes(on: query),
            results: found.map { .init(id: $0.image, path: $0.path, score: $0.score) })
    }
}
