import Catalog
import CatalogServer
import Foundation
import HTTPTypes
import Hummingbird
import ImageCodecs
import TestSupport
import Testing

/// Every page renders from the database, escapes what users typed, and says what to do where data is missing.
@Suite(.serialized, .needs(.wildPhotos, .ukbenchDev)) struct PageTests {
    let fixture: ServerFixture
    init() async throws { fixture = try await ServerFixture.shared.value }

    static let html: HTTPFields = [.accept: "text/html"]

    @Test(arguments: TestStore.allCases) func everyPageShowsTheDatabase(store: TestStore) async throws {
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let people = try await client.execute(uri: "/people", method: .get, headers: Self.html)
            #expect(people.status == .ok && people.headers[.contentType] == "text/html; charset=utf-8")
            #expect(people.text.contains("Barack Obama") && people.text.contains("/faces/"))
            let list = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let obama = try #require(list.items.first { $0.name == "Barack Obama" })
            let person = try await client.execute(uri: "/people/\(obama.id)", method: .get, headers: Self.html)
            #expect(
                person.text.contains("<h1>Barack Obama</h1>")
                    && person.text.contains("data-api=\"/api/people/\(obama.id)/merge\""))
            let photos = try await client.execute(uri: "/photos", method: .get, headers: Self.html)
            #expect(photos.text.contains("14 photos") && photos.text.contains("ukbench00003.jpg"))
            let his = try await client.execute(uri: "/photos?person=\(obama.id)", method: .get, headers: Self.html)
            #expect(his.text.contains("Photos of Barack Obama"))
            let summaries = try await client.execute(uri: "/api/photos", method: .get) {
                try $0.json(APIRouteTests.Listing<PhotoSummary>.self)
            }
            let biden = try #require(summaries.items.first { $0.path.hasSuffix("/train/biden/biden.jpg") })
            let photo = try await client.execute(uri: "/photos/\(biden.id)", method: .get, headers: Self.html)
            let copies = photo.text.components(separatedBy: "<h2>Copies</h2>").last?
                .components(separatedBy: "<h2>Similar photos</h2>").first
            #expect(
                photo.status == .ok && photo.text.contains("<rect x=") && copies?.contains("biden copy.jpg") == true)
            #expect(photo.text.contains("Similar photos") && photo.text.contains("/photos/\(biden.id)/image"))
            let duplicates = try await client.execute(uri: "/duplicates", method: .get, headers: Self.html)
            #expect(duplicates.text.contains("the best copy") && duplicates.text.contains("biden copy.jpg"))
            #expect(
                duplicates.text.contains("<form data-cleanup=\"\">") && duplicates.text.contains("name=\"keep-0\"")
                    && duplicates.text.contains("Leave this group alone"))
            let shots = try await client.execute(
                uri: "/duplicates?similar=true&threshold=0.3", method: .get, headers: Self.html)
            #expect(shots.text.contains("<form data-cleanup=\"?similar=true&amp;threshold=0.3\">"))
            let runs = try await client.execute(uri: "/duplicates/runs", method: .get, headers: Self.html)
            #expect(runs.status == .ok && runs.text.contains("No cleanup has moved copies yet"))
            let status = try await client.execute(uri: "/status", method: .get, headers: Self.html)
            #expect(status.text.contains("Last indexing run") && status.text.contains("<td>14</td>"))
            let search = try await client.execute(uri: "/search", method: .get, headers: Self.html)
            #expect(search.text.contains("enctype=\"multipart/form-data\""))
            let home = try await client.execute(uri: "/", method: .get, headers: Self.html)
            #expect(home.status == .found && home.headers[.location] == "/people")
        }
    }

    @Test(arguments: TestStore.allCases) func aSearchFormShowsWhoTheFacesAre(store: TestStore) async throws {
        let probe = try ImageDecoder.contents(of: SharedData.root + "/wild-photos/test/obama1.jpg")
        let boundary = "b-\(UUID().uuidString)"
        var form = Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"x.jpg\"\r\n\r\n".utf8)
        form += Data(probe) + Data("\r\n--\(boundary)--\r\n".utf8)
        let upload = form
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let page = try await client.execute(
                uri: "/search", method: .post,
                headers: [.accept: "text/html", .contentType: "multipart/form-data; boundary=\(boundary)"],
                body: ByteBuffer(bytes: upload))
            #expect(
                page.status == .ok && page.text.contains("Barack Obama")
                    && page.text.contains("data:image/jpeg;base64,"))
            let bad = try await client.execute(
                uri: "/search", method: .post, headers: [.accept: "text/html"], body: ByteBuffer(string: "not an image")
            )
            #expect(bad.status == .unprocessableContent && bad.text.contains("<p class=\"error\">"))
        }
    }

    @Test func namesAreEscaped() async throws {
        try await fixture.withServer { client, _ in
            let list = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let person = try #require(list.items.last)
            let name = "<script>alert(1)</script> & \"quotes\""
            let body = try JSONEncoder().encode(["name": name])
            #expect(
                try await client.execute(uri: "/api/people/\(person.id)", method: .post, body: ByteBuffer(data: body))
                    .status == .ok)
            for uri in ["/people", "/people/\(person.id)"] {
                let page = try await client.execute(uri: uri, method: .get, headers: Self.html).text
                #expect(
                    !page.contains("<script>alert") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(uri)")
            }
        }
    }

    @Test func unknownPagesAndBadPagesAnswerWithAPage() async throws {
        try await fixture.withServer { client, _ in
            for (uri, status) in [
                ("/people/999999", HTTPResponse.Status.notFound), ("/photos/999999", .notFound),
                ("/nothing", .notFound),
                ("/people?page=0", .badRequest),
            ] {
                let response = try await client.execute(uri: uri, method: .get, headers: Self.html)
                #expect(response.status == status && response.text.contains("<p class=\"error\">"), "\(uri)")
            }
            let api = try await client.execute(uri: "/api/people/999999", method: .get, headers: Self.html)
            #expect(api.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    /// A database indexed without prints: the pages say how to make them.
    @Test func withoutPrintsThePagesSayHowToMakeThem() async throws {
        let configuration = try fixture.configuration()
        let catalog = try Catalog(path: configuration.database)
        _ = try await catalog.write { db in try db.execute(sql: "DELETE FROM photo_prints") }
        try await fixture.withServer(configuration) { client, _ in
            let duplicates = try await client.execute(uri: "/duplicates", method: .get, headers: Self.html)
            // Byte-identical copies are found without prints.
            #expect(
                duplicates.text.contains("cbir index &lt;folder&gt; --db") && duplicates.text.contains("biden copy.jpg")
            )
            let summaries = try await client.execute(uri: "/api/photos", method: .get) {
                try $0.json(APIRouteTests.Listing<PhotoSummary>.self)
            }
            let id = try #require(summaries.items.first?.id)
            let photo = try await client.execute(uri: "/photos/\(id)", method: .get, headers: Self.html)
            #expect(photo.text.contains("has no print yet"))
            let similar = try await client.execute(uri: "/api/photos/\(id)/similar", method: .get) {
                try $0.json(APIRouteTests.Similar.self)
            }
            #expect(!similar.printed && similar.photos.isEmpty)
        }
    }
}
