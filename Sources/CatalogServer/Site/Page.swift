import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// An HTML page: a template of ``Assets`` filled with a value (its properties by name, Mustache escaping
/// every one of them), inside the layout with the site's navigation. The value reaches the template as
/// the dictionaries and arrays of its JSON form, which Mustache reads by key (reading a Swift value's
/// properties through reflection took it 40 µs a card of the people grid).
struct Page: ResponseGenerator {
    let template: String
    let title: String
    let content: any Encodable & Sendable
    var status: HTTPResponse.Status = .ok

    /// The templates, parsed once.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, bytes) in Assets.templates {
            // The templates are part of the binary and parsed by a test: a broken one fails there first.
            if let template = try? MustacheTemplate(string: String(decoding: bytes, as: UTF8.self)) {
                library.register(template, named: name)
            }
        }
        return library
    }()

    /// The sections every page links to: path and label.
    static let sections = [
        ("/people", "People"), ("/photos", "Photos"), ("/duplicates", "Duplicates"), ("/search", "Search"),
        ("/status", "Status"),
    ]

    /// A moment (seconds since 1970) as pages show it: "2026-12-02 13:05:41", in the server's time zone.
    static func time(_ seconds: Double) -> String {
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return format.string(from: Date(timeIntervalSince1970: seconds))
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let frame: [String: Any] = [
            "title": title,
            "query": request.uri.path == "/search" ? request.uri.queryParameters.get("q") ?? "" : "",
            "navigation": Self.sections.map { path, label in
                ["path": path, "label": label, "current": request.uri.path.hasPrefix(path)] as [String: Any]
            },
            "content": try JSONSerialization.jsonObject(with: JSONEncoder().encode(content)),
        ]
        guard let html = Self.library.render(frame, withTemplate: template) else {
            throw HTTPError(.internalServerError, message: "no page template \(template)")
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
