import CatalogServer
import Foundation
import Hummingbird
import Testing

/// The OpenAPI document at `/api/openapi.json` describes every route of the API and the files, and no other.
@Suite(.needs(.wildPhotos, .ukbenchDev)) struct OpenAPITests {
    @Test func everyRouteIsDescribed() async throws {
        let fixture = try await ServerFixture.shared.value
        let configuration = try fixture.configuration()
        let router = try buildRouter(configuration)
        // Routes of the API and the files; the pages are HTML for people, not part of the API.
        let routes = Set(
            router.routes.map { route in
                // `/api/people/:id` is `/api/people/{id}` in OpenAPI.
                let path = route.path.description.split(separator: "/").map {
                    $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
                }.joined(separator: "/")
                return "\(route.method.rawValue.lowercased()) /\(path)"
            }.filter { $0.contains(" /api/") || $0.hasSuffix("/image") || $0.hasSuffix("/thumbnail") })
        let bytes = try await fixture.withServer(configuration) { client, _ in
            try await client.execute(uri: "/api/openapi.json", method: .get) { Data(buffer: $0.body) }
        }
        let document = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] ?? [:]
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        let described = Set(paths.flatMap { path, methods in methods.keys.map { "\($0) \(path)" } })
        #expect(routes.count >= 15)
        #expect(routes.subtracting(described).isEmpty, "not described: \(routes.subtracting(described).sorted())")
        #expect(described.subtracting(routes).isEmpty, "not routed: \(described.subtracting(routes).sorted())")
    }
}
