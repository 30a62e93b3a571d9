import Catalog
import CatalogServer
import Foundation
import HTTPTypes
import Hummingbird
import TestSupport
import Testing

/// What guards the server: the token (header, cookie, sign-in page), loopback by default, the origin of
/// changes, a read-only database, and the headers every answer carries.
@Suite(.serialized, .needs(.wildPhotos, .ukbenchDev)) struct AccessTests {
    let fixture: ServerFixture
    init() async throws { fixture = try await ServerFixture.shared.value }

    static let token = "a-token-long-enough-1234"

    @Test func anotherAddressNeedsAStrongToken() throws {
        #expect(throws: ServerError.self) { try ServerConfiguration(host: "0.0.0.0").validate() }
        #expect(throws: ServerError.self) { try ServerConfiguration(host: "192.168.1.5", token: "short").validate() }
        #expect(throws: ServerError.self) { try ServerConfiguration(port: 70000).validate() }
        try ServerConfiguration(host: "0.0.0.0", token: Self.token).validate()
        try ServerConfiguration().validate()
        #expect(throws: ServerError.self) { _ = try buildApplication(ServerConfiguration(host: "0.0.0.0")) }
    }

    @Test func everyRequestCarriesTheToken() async throws {
        try await fixture.withServer(try fixture.configuration(token: Self.token)) { client, _ in
            let bare = try await client.execute(uri: "/api/stats", method: .get)
            #expect(bare.status == .unauthorized && bare.headers[.wwwAuthenticate] == "Bearer")
            let wrong = try await client.execute(
                uri: "/api/stats", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == .unauthorized)
            let page = try await client.execute(uri: "/people", method: .get, headers: [.accept: "text/html"])
            #expect(page.status == .found && page.headers[.location] == "/sign-in")
            for uri in ["/photos/1/image", "/faces/1/thumbnail", "/api/openapi.json", "/nothing/here"] {
                #expect(try await client.execute(uri: uri, method: .get).status == .unauthorized, "\(uri)")
            }
            let bearer = try await client.execute(
                uri: "/api/stats", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(bearer.status == .ok)
            // The sign-in page and its style sheet are open; a wrong token is refused, the right one sets the cookie.
            #expect(try await client.execute(uri: "/sign-in", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/assets/site.css", method: .get).status == .ok)
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let refused = try await client.execute(
                uri: "/sign-in", method: .post, headers: form, body: ByteBuffer(string: "token=guess"))
            #expect(refused.status == .unauthorized && refused.headers[.setCookie] == nil)
            let signedIn = try await client.execute(
                uri: "/sign-in", method: .post, headers: form, body: ByteBuffer(string: "token=\(Self.token)"))
            let set = try #require(signedIn.headers[.setCookie])
            #expect(signedIn.status == .found && set.hasPrefix("cbir_token="))
            #expect(set.contains("HttpOnly") && set.contains("SameSite=Strict"))
            let cookie = try #require(set.split(separator: ";").first.map(String.init))
            #expect(try await client.execute(uri: "/api/stats", method: .get, headers: [.cookie: cookie]).status == .ok)
        }
    }

    @Test func changesFromAnotherSitesPageAreRefused() async throws {
        try await fixture.withServer { client, _ in
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let person = try #require(people.items.first)
            let change = jsonBody(#"{"hidden": true}"#)
            for headers: HTTPFields in [
                [.origin: "http://evil.example"], [.origin: "null"], [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"],
            ] {
                let response = try await client.execute(
                    uri: "/api/people/\(person.id)", method: .post, headers: headers, body: change)
                #expect(response.status == .forbidden, "\(headers)")
            }
            let after = try await client.execute(uri: "/api/people/\(person.id)", method: .get) {
                try $0.json(APIRouteTests.PersonDetail.self)
            }
            #expect(!after.person.hidden)
        }
    }

    @Test func aReadOnlyDatabaseIsServedReadOnly() async throws {
        try await fixture.withServer(try fixture.configuration(readOnly: true)) { client, _ in
            let stats = try await client.execute(uri: "/api/stats", method: .get) {
                try $0.json(APIRouteTests.Stats.self)
            }
            #expect(!stats.writable)
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let person = try #require(people.items.first)
            let refused = try await client.execute(
                uri: "/api/people/\(person.id)", method: .post, body: jsonBody(#"{"name": "x"}"#))
            #expect(refused.status == .forbidden && refused.text.contains("read-only"))
            let page = try await client.execute(
                uri: "/people/\(person.id)", method: .get, headers: [.accept: "text/html"])
            #expect(page.status == .ok && page.text.contains("read-only") && !page.text.contains("data-api"))
            let duplicates = try await client.execute(uri: "/duplicates", method: .get, headers: [.accept: "text/html"])
            #expect(duplicates.text.contains("biden copy.jpg") && !duplicates.text.contains("type=\"radio\""))
        }
    }

    @Test func answersCarryHeadersThatKeepPagesToThemselves() async throws {
        try await fixture.withServer { client, _ in
            for uri in ["/people", "/api/stats", "/nothing"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
            }
        }
    }

    /// Indexing in another process (here another catalog on the file) while the server reads: the pages see
    /// the new photos at once (WAL).
    @Test func photosIndexedWhileServingAppear() async throws {
        let configuration = try fixture.configuration()
        try await fixture.withServer(configuration) { client, _ in
            let before = try await client.execute(uri: "/api/stats", method: .get) {
                try $0.json(APIRouteTests.Stats.self)
            }
            let more = fixture.folder + "/more-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: more, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: more) }
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/wild-photos/test/obama1.jpg", toPath: more + "/obama1.jpg")
            let context = try ServerFixture.context()
            _ = try await Catalog(path: configuration.database).index(
                folder: more, analyses: [try PhotoPrintAnalysis(context: context)], context: context, keepMissing: true)
            let after = try await client.execute(uri: "/api/stats", method: .get) {
                try $0.json(APIRouteTests.Stats.self)
            }
            #expect(after.images == before.images + 1 && after.printedImages == before.printedImages + 1)
            #expect(after.lastRun?.folder.hasSuffix(more.split(separator: "/").last.map(String.init) ?? "") == true)
        }
    }
}
