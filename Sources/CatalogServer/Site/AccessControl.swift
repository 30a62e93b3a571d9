import Foundation
import HTTPTypes
import Hummingbird

/// What guards every request: the token, where the server has one (an `Authorization: Bearer` header, or
/// the cookie the sign-in page sets; without it a browser is sent to sign in and the API answers 401),
/// the origin of changes (a request that changes something, sent by a page of another site, is refused)
/// and the headers that keep pages from being framed, sniffed or fed other sites' scripts.
struct AccessControl<Context: RequestContext>: RouterMiddleware {
    let token: String?

    static var cookie: String { "cbir_token" }
    /// What anyone may fetch: the sign-in page and what it is drawn with.
    static func isPublic(_ path: String) -> Bool { path == "/sign-in" || path.hasPrefix("/assets/") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        if ![.get, .head].contains(request.method) && !Self.isSameOrigin(request) {
            response = try HTTPError(.forbidden, message: "a change sent from another site's page is refused")
                .response(from: request, context: context)
        } else if let token, !Self.isPublic(request.uri.path), !Self.carries(token, request) {
            response =
                ErrorPages<Context>.wantsPage(request)
                ? .redirect(to: "/sign-in", type: .found)
                : try HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "a token is needed")
                    .response(from: request, context: context)
        } else {
            response = try await next(request, context)
        }
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; "
            + "form-action 'self'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return response
    }

    /// Whether the request carries the token, in its header or its cookie.
    static func carries(_ token: String, _ request: Request) -> Bool {
        let header = request.headers[.authorization].flatMap { value in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        return [header, request.cookies[cookie]?.value].contains { $0.map { matches($0, token) } ?? false }
    }

    /// Compares in time that does not depend on where the strings differ.
    static func matches(_ given: String, _ token: String) -> Bool {
        let a = Array(given.utf8), b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in b.indices { difference |= b[index] ^ (index < a.count ? a[index] : 0) }
        return difference == 0
    }

    /// Whether a change comes from this server's own pages, or from no page (a script, curl): its `Origin`,
    /// where it has one, names the host it was sent to, and the browser does not call it cross-site.
    static func isSameOrigin(_ request: Request) -> Bool {
        if request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "cross-site" { return false }
        guard let origin = request.headers[.origin] else { return true }
        guard let scheme = origin.range(of: "://"), let authority = request.head.authority else { return false }
        return origin[scheme.upperBound...].lowercased() == authority.lowercased()
    }
}

/// The sign-in page of a server with a token: the token typed once, kept in a cookie only this site's
/// requests carry, never readable by scripts.
struct SignInController<Context: RequestContext> {
    let token: String?

    private struct Form: Decodable { let token: String }
    private struct Content: Encodable { let failed: Bool }

    func addRoutes(to router: Router<Context>) {
        router.get("/sign-in") { _, _ in Page(template: "sign-in", title: "Sign in", content: Content(failed: false)) }
        router.post("/sign-in") { request, context in
            let body = try await request.body.collect(upTo: 4096)
            let form = try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body))
            guard let token, let given = form?.token, AccessControl<Context>.matches(given, token) else {
                try await Task.sleep(for: .milliseconds(500))  // guesses come slowly
                return try Page(
                    template: "sign-in", title: "Sign in", content: Content(failed: true), status: .unauthorized
                ).response(from: request, context: context)
            }
            var response = Response.redirect(to: "/", type: .found)
            response.setCookie(
                Cookie(
                    name: AccessControl<Context>.cookie, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
    }
}
