import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import ImageCodecs

/// Turns what a handler throws into an answer: the status the error means (an unknown id is 404, a bad
/// query 400, an image that cannot be decoded 422, a read-only database 403, a busy one 503) and its
/// message, as JSON for the API (`{"error": {"message": …}}`, Hummingbird's own shape) and as a page for a browser.
struct ErrorPages<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let (status, message) = Self.describe(error)
            if status.code >= 500 { context.logger.error("\(request.method) \(request.uri.path): \(message)") }
            if Self.wantsPage(request) {
                var response = try Page(
                    template: "error", title: status.reasonPhrase,
                    content: ErrorContent(
                        status: status.code, reason: status.reasonPhrase, message: message), status: status
                )
                .response(from: request, context: context)
                if let headers = (error as? HTTPError)?.headers { response.headers.append(contentsOf: headers) }
                return response
            }
            return try HTTPError(status, headers: (error as? HTTPError)?.headers ?? [:], message: message)
                .response(from: request, context: context)
        }
    }

    private struct ErrorContent: Encodable {
        let status: Int
        let reason: String
        let message: String
    }

    /// Whether the answer is a page: for a page's path (not the API's, a file's or an asset's), unless the
    /// request asks for JSON and not for HTML.
    static func wantsPage(_ request: Request) -> Bool {
        let path = request.uri.path, accept = request.headers[.accept] ?? ""
        let isFile = path.hasPrefix("/assets/") || path.hasSuffix("/image") || path.hasSuffix("/thumbnail")
        return !path.hasPrefix("/api/") && !isFile
            && (accept.contains("text/html") || !accept.contains("application/json"))
    }

    /// The status an error means and what to tell the user.
    static func describe(_ error: any Error) -> (HTTPResponse.Status, String) {
        switch error {
        case let error as HTTPError: (error.status, error.body ?? error.status.reasonPhrase)
        case let error as CatalogError: (status(of: error), error.description)
        case let error as ImageCodecError: (.unprocessableContent, error.description)
        case is DecodingError: (.badRequest, "the request's body is not what this route takes")
        case let error as any HTTPResponseError: (error.status, error.status.reasonPhrase)
        default: (.internalServerError, "\(error)")
        }
    }

    private static func status(of error: CatalogError) -> HTTPResponse.Status {
        switch error {
        case .notFound: .notFound
        case .invalidQuery, .invalidName: .badRequest
        case .probe: .unprocessableContent
        case .readOnly: .forbidden
        case .busy, .unreachable: .serviceUnavailable
        case .mismatch, .refusedWorker: .conflict
        case .storage, .damaged, .unrepairable, .unreadableFolder, .processing: .internalServerError
        }
    }
}
