import Foundation
import HTTPTypes
import Hummingbird

/// What guards every request: the token, where the server has one (an `Authorization: Bearer` header, or
/// the cookie the sign-in page sets; without it a browser is sent to sign in and the API answers 401);
/// without one, the name the request was sent to (only this machine's loopback names are answered, so
/// that a page of another site whose name was rebound to 127.0.0.1 reads nothing); the origin of changes
/// (a request that changes something, sent by a page of another site, is refused); and the headers that
/// keep pages from being framed, sniffed or fed other sites' scripts, and API answers out of caches.
struct AccessControl<Context: RequestContext>: RouterMiddleware {
    let token: String?
    /// The address the server listens on: a name it may be reached by besides loopback's.
    let host: String
    /// The sign-ins whose cookies stand for the token.
    let sessions: Sessions

    static var cookie: String { "cbir_token" }
    /// What anyone may fetch: the sign-in page and what it is drawn with.
    static func isPublic(_ path: String) -> Bool { path == "/sign-in" || path.hasPrefix("/assets/") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        if token == nil, let name = Self.hostName(request), !ServerConfiguration.isLoopback(name), name != host {
            response = try HTTPError(
                .forbidden,
                message: "this server answers requests sent to this machine's loopback only, not to \(name); "
                    + "give `cbir serve` --host and --token to reach it by another name"
            ).response(from: request, context: context)
        } else if ![.get, .head].contains(request.method) && !Self.isSameOrigin(request) {
            response = try HTTPError(.forbidden, message: "a change sent from another site's page is refused")
                .response(from: request, context: context)
        } else if let token, !Self.isPublic(request.uri.path), !carries(token, request) {
            response =
                ErrorPages<Context>.wantsPage(request) && request.headers[.accept]?.contains("text/html") == true
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
        if request.uri.path.hasPrefix("/api/"), response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }

    /// The host name a request was sent to (its `Host`, or its URL's authority), lowercased, without the
    /// port or an IPv6 address's brackets; nil for a request that names none (HTTP/1.0: no browser's).
    static func hostName(_ request: Request) -> String? {
        guard let authority = request.head.authority?.lowercased(), !authority.isEmpty else { return nil }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// Whether the request carries the token in its header, or the cookie of a sign-in.
    func carries(_ token: String, _ request: Request) -> Bool {
        let header = request.headers[.authorization].flatMap { value in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        return header.map { Self.matches($0, token) } ?? false
            || request.cookies[Self.cookie].map { sessions.contains($0.value) } ?? false
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

/// The sign-in page of a server with a token: the token typed once, a sign-in of its own kept in a cookie
/// (``Sessions``) that only this site's requests carry, never readable by scripts.
struct SignInController<Context: RequestContext> {
    let token: String?
    let sessions: Sessions

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
                    name: AccessControl<Context>.cookie, value: sessions.start(), path: "/", httpOnly: true,
                    sameSite: .strict))
            return response
        }
    }
}
