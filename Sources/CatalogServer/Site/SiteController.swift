import Catalog
import Foundation
import Hummingbird

/// What every page is drawn with (`/assets/…`) and the API's OpenAPI document (`/api/openapi.json`).
struct SiteController<Context: RequestContext>: Sendable {
    func addRoutes(to router: Router<Context>) {
        router.get("/assets/:name") { request, context in
            guard let name = context.parameters.get("name"), let file = Assets.files[name] else {
                throw HTTPError(.notFound)
            }
            return PhotosController<Context>.file(
                file.bytes, type: file.type, tag: Self.tag(file.bytes), request: request)
        }
        router.get("/api/openapi.json") { request, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: Assets.openAPI)))
        }
    }

    /// An entity tag for bytes that change only with the binary: their content hash.
    static func tag(_ bytes: [UInt8]) -> String { "\"\(ContentHash.of(bytes))\"" }
}
