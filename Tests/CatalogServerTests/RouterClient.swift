import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// Sends requests straight to a router's responder, in process, as HummingbirdTesting's router framework
/// does; that package also builds an HTTP client with its TLS library, which took longer to build than the
/// whole server.
struct RouterClient: Sendable {
    let responder: RouterResponder<BasicRequestContext>
    /// What the server logged while answering, for the tests to read instead of the console.
    let log = LoggedLines()

    /// What came back.
    struct Response: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer
    }

    /// Sends a request to `authority` (the `Host` it names), answering a thrown error as the server would,
    /// and hands the response to `check`.
    @discardableResult
    func execute<Return>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        authority: String = "localhost", testCallback check: (Response) async throws -> Return = { $0 }
    ) async throws -> Return {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: authority, path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = BasicRequestContext(
            source: ApplicationRequestContextSource(
                channel: EmbeddedChannel(), logger: Logger(label: "test") { _ in LoggedLines.Handler(lines: log) }))
        let response: Hummingbird.Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        let collected = Collected()
        try await response.body.write(BodyWriter(collected: collected))
        return try await check(Response(status: response.status, headers: response.headers, body: collected.body))
    }

    /// The bytes of a response's body as they are written.
    private final class Collected: @unchecked Sendable {
        var body = ByteBuffer()
    }

    private struct BodyWriter: ResponseBodyWriter {
        let collected: Collected

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collected.body.writeBuffer(&buffer)
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

/// The lines a server logged ("error: message"), kept in order.
final class LoggedLines: Sendable {
    private let kept = Mutex<[String]>([])

    var lines: [String] { kept.withLock { $0 } }

    struct Handler: LogHandler {
        let lines: LoggedLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.kept.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }
}
