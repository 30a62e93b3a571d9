import Catalog
import CatalogServer
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import ImageCodecs
import ImageKernels
import TestSupport
import Testing

/// The server under careless and hostile requests: files it must not hand out, names it must not answer
/// to, odd spellings of ids and flags, changes that say nothing or too much, weak tokens, a database deleted
/// under it, and uploads no photo could be.
@Suite(.serialized, .needs(.wildPhotos, .ukbenchDev)) struct HostileRequestTests {
    let fixture: ServerFixture
    init() async throws { fixture = try await ServerFixture.shared.value }

    /// A folder of photos, failed files and a secret beside them, indexed with prints; then files changed
    /// under the catalog: one photo replaced by a link to the secret, one by another photo, one deleted, one
    /// touched (the same bytes under a new time).
    struct Library {
        let folder: String
        let database: String
        let secret: String
        /// Stored ids by file name.
        let ids: [String: Int64]

        static func make() async throws -> Library {
            let folder = NSTemporaryDirectory() + "cbir-hostile-" + UUID().uuidString, photos = folder + "/photos"
            try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
            let secret = folder + "/secret.txt"
            try Data("SECRET".utf8).write(to: URL(fileURLWithPath: secret))
            chmod(secret, 0o600)
            for (number, name) in ["a", "b", "c", "d", "e"].enumerated() {
                try FileManager.default.copyItem(
                    atPath: SharedData.root + String(format: "/ukbench-dev/ukbench%05d.jpg", number * 4),
                    toPath: photos + "/\(name).jpg")
            }
            try FileManager.default.copyItem(atPath: photos + "/a.jpg", toPath: photos + "/a copy.jpg")
            try FileManager.default.createSymbolicLink(atPath: photos + "/s.jpg", withDestinationPath: secret)
            try Data("not a photo".utf8).write(to: URL(fileURLWithPath: photos + "/README"))
            let database = folder + "/cbir.sqlite"
            let context = try ServerFixture.context()
            _ = try await Catalog(path: database).index(
                folder: photos, analyses: [try PhotoPrintAnalysis(context: context)], context: context)
            let ids = try Catalog(path: database).read { db in
                Dictionary(
                    uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, path FROM images").map {
                        (($0["path"] as String).split(separator: "/").last.map(String.init) ?? "", $0["id"] as Int64)
                    })
            }
            try FileManager.default.removeItem(atPath: photos + "/b.jpg")
            try FileManager.default.createSymbolicLink(atPath: photos + "/b.jpg", withDestinationPath: secret)
            try FileManager.default.removeItem(atPath: photos + "/c.jpg")
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/ukbench00041.jpg", toPath: photos + "/c.jpg")
            try FileManager.default.removeItem(atPath: photos + "/a copy.jpg")
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: photos + "/e.jpg")
            return Library(folder: folder, database: database, secret: secret, ids: ids)
        }

        func configuration() throws -> ServerConfiguration {
            ServerConfiguration(database: database, context: try ServerFixture.context())
        }
    }

    /// Only an indexed photo whose file is still the photo that was indexed is served, whole and as it is;
    /// failed files, links to what the server may read, replaced and deleted files are not, nor are their
    /// thumbnails; the duplicates leave out what changed and say so.
    @Test func onlyIndexedPhotosAsTheyWereIndexedAreServed() async throws {
        let library = try await Library.make()
        defer { try? FileManager.default.removeItem(atPath: library.folder) }
        try await fixture.withServer(try library.configuration()) { client, _ in
            for name in ["a.jpg", "d.jpg", "e.jpg"] {
                let id = try #require(library.ids[name])
                let file = try await client.execute(uri: "/photos/\(id)/image", method: .get)
                let bytes = try ImageDecoder.contents(of: library.folder + "/photos/" + name)
                #expect(file.status == .ok && Array(buffer: file.body) == bytes, "\(name)")
                #expect(file.headers[.contentLength] == String(bytes.count) || file.headers[.contentLength] == nil)
                let thumbnail = try await client.execute(uri: "/photos/\(id)/thumbnail", method: .get)
                #expect(thumbnail.status == .ok, "\(name)")
            }
            for name in ["s.jpg", "README", "b.jpg", "c.jpg", "a copy.jpg"] {
                let id = try #require(library.ids[name])
                for uri in ["/photos/\(id)/image", "/photos/\(id)/thumbnail"] {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .notFound, "\(name) \(uri): \(response.status)")
                    #expect(!response.text.contains("SECRET"), "\(name) \(uri)")
                }
            }
            for name in ["s.jpg", "README"] {
                let id = try #require(library.ids[name])
                #expect(try await client.execute(uri: "/api/photos/\(id)", method: .get).status == .notFound)
            }
            let duplicates = try await client.execute(uri: "/api/duplicates", method: .get) {
                try $0.json(Duplicates.self)
            }
            #expect(duplicates.groups.items.isEmpty, "the only copy of a.jpg is gone: \(duplicates.groups.items)")
            #expect(
                Set(duplicates.stale.map { $0.path.split(separator: "/").last ?? "" }) == [
                    "a copy.jpg", "b.jpg", "c.jpg",
                ])
            let page = try await client.execute(
                uri: "/photos/\(try #require(library.ids["a.jpg"]))", method: .get, headers: PageTests.html)
            #expect(page.text.contains("No copy of this photo."), "a copy.jpg, byte for byte a.jpg once, is gone")
        }
    }

    struct Duplicates: Decodable {
        let groups: APIRouteTests.Listing<DuplicateGroup>
        let stale: [StalePhoto]
    }

    /// Without a token the server answers only requests sent to this machine's loopback: a page of another
    /// site whose name was rebound to 127.0.0.1 (its requests name that site as their host) reads and
    /// changes nothing. With a token, any name is answered (the token is what guards it).
    @Test func otherNamesAreAnsweredOnlyWithAToken() async throws {
        try await fixture.withServer { client, _ in
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let person = try #require(people.items.first)
            for authority in ["evil.example:8080", "evil.example", "EVIL.example:8080", "127.0.0.1.evil.example"] {
                let read = try await client.execute(uri: "/api/people", method: .get, authority: authority)
                #expect(read.status == .forbidden && !read.text.contains("Obama"), "\(authority): \(read.status)")
                let change = try await client.execute(
                    uri: "/api/people/\(person.id)", method: .post,
                    headers: [.origin: "http://\(authority)", .contentType: "application/json"],
                    body: jsonBody(#"{"name": "REBOUND"}"#), authority: authority)
                #expect(change.status == .forbidden, "\(authority)")
            }
            for authority in ["localhost:8080", "127.0.0.1:8080", "127.0.0.2", "[::1]:8080", "LOCALHOST"] {
                let read = try await client.execute(uri: "/api/people", method: .get, authority: authority)
                #expect(read.status == .ok, "\(authority): \(read.status)")
            }
            let after = try await client.execute(uri: "/api/people/\(person.id)", method: .get) {
                try $0.json(APIRouteTests.PersonDetail.self)
            }
            #expect(after.person.name != "REBOUND")
        }
        let token = AccessTests.token
        try await fixture.withServer(try fixture.configuration(token: token)) { client, _ in
            let read = try await client.execute(
                uri: "/api/stats", method: .get, headers: [.authorization: "Bearer \(token)"], authority: "nas.local")
            #expect(read.status == .ok)
        }
    }

    /// An id or a number is written one way (digits, no sign, no leading zero), a flag is true or false, a
    /// page past the end is not found; HEAD answers as GET does without a body; API answers are not cached;
    /// a page's error is a page whatever the client accepts.
    @Test func oddSpellingsAreRefusedAndEveryAnswerIsWhatItSays() async throws {
        try await fixture.withServer { client, _ in
            for uri in ["/api/photos/+1", "/api/photos/01", "/api/photos/-1", "/api/people/1e0", "/photos/+1/image"] {
                #expect(try await client.execute(uri: uri, method: .get).status == .notFound, "\(uri)")
            }
            for uri in [
                "/api/duplicates?similar=1", "/api/duplicates?similar=yes", "/api/people?hidden=TRUE",
                "/api/people?page=+1", "/api/people?page=01", "/api/people?page=0", "/api/photos?person=+3",
                "/api/photos/1/similar?top=+5",
            ] {
                #expect(try await client.execute(uri: uri, method: .get).status == .badRequest, "\(uri)")
            }
            for uri in ["/api/people?page=6", "/api/photos?page=2", "/api/duplicates?page=9"] {
                #expect(try await client.execute(uri: uri, method: .get).status == .notFound, "\(uri)")
            }
            let pastTheEnd = try await client.execute(uri: "/photos?page=6", method: .get)
            #expect(pastTheEnd.status == .notFound && pastTheEnd.text.contains("<p class=\"error\">"))
            let get = try await client.execute(uri: "/api/stats", method: .get)
            let head = try await client.execute(uri: "/api/stats", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(get.headers[.cacheControl] == "no-store")
            let page = try await client.execute(uri: "/people/abc", method: .get)
            #expect(page.status == .notFound && page.headers[.contentType]?.hasPrefix("text/html") == true)
            let asked = try await client.execute(
                uri: "/people/abc", method: .get, headers: [.accept: "application/json"])
            #expect(asked.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    /// A move that names no person changes nothing; a name that differs from another person's in case
    /// alone, or that carries marks turning text right to left, is refused.
    @Test func changesThatSayNothingOrMislead() async throws {
        try await fixture.withServer { client, _ in
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let named = try #require(people.items.first { $0.name == "Barack Obama" })
            let other = try #require(people.items.first { $0.name == nil })
            let detail = try await client.execute(uri: "/api/people/\(named.id)", method: .get) {
                try $0.json(APIRouteTests.PersonDetail.self)
            }
            let face = try #require(detail.faces.items.first)
            let empty = try await client.execute(uri: "/api/faces/\(face.id)", method: .post, body: jsonBody("{}"))
            #expect(empty.status == .badRequest)
            let still = try await client.execute(uri: "/api/people/\(named.id)", method: .get) {
                try $0.json(APIRouteTests.PersonDetail.self)
            }
            #expect(still.faces.items.contains { $0.id == face.id })
            for name in ["barack obama", "BARACK OBAMA", "Barack\u{202E}amabO", "\u{2067}Joe"] {
                let response = try await client.execute(
                    uri: "/api/people/\(other.id)", method: .post, body: jsonBody(#"{"name": "\#(name)"}"#))
                #expect(response.status == .badRequest, "\(name.debugDescription): \(response.text)")
            }
        }
    }

    /// A token a person would type as a secret is refused; the cookie a sign-in sets is not the token, and
    /// the token itself in a cookie opens nothing.
    @Test func tokensAreStrongAndNeverKeptInCookies() async throws {
        for weak in [String(repeating: "a", count: 16), String(repeating: "ab", count: 12), "1234567812345678"] {
            #expect(throws: ServerError.self, "\(weak)") { try ServerConfiguration(token: weak).validate() }
        }
        try ServerConfiguration(token: "3f9c2a7be01d45c8a6f4e2b19d7c3a50").validate()
        let token = AccessTests.token
        try await fixture.withServer(try fixture.configuration(token: token)) { client, _ in
            let signedIn = try await client.execute(
                uri: "/sign-in", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(token)"))
            let cookie = try #require(signedIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            #expect(!cookie.contains(token))
            #expect(try await client.execute(uri: "/api/stats", method: .get, headers: [.cookie: cookie]).status == .ok)
            let forged = try await client.execute(
                uri: "/api/stats", method: .get, headers: [.cookie: "cbir_token=\(token)"])
            #expect(forged.status == .unauthorized)
        }
    }

    /// The database file deleted under a running server: a change is refused, not answered as done and lost.
    @Test func aDeletedDatabaseTakesNoChanges() async throws {
        let configuration = try fixture.configuration()
        try await fixture.withServer(configuration) { client, _ in
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(APIRouteTests.Listing<Person>.self)
            }
            let person = try #require(people.items.first)
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: configuration.database + suffix)
            }
            let change = try await client.execute(
                uri: "/api/people/\(person.id)", method: .post, body: jsonBody(#"{"name": "Lost Name"}"#))
            #expect(
                change.status.code >= 500 && change.text.contains("deleted or replaced"),
                "\(change.status): \(change.text)")
            #expect(
                client.log.lines.contains {
                    $0.hasPrefix("error: POST /api/people/") && $0.contains("nothing was written")
                })
        }
    }

    /// An upload whose one side is hundreds of times the other is refused at its header, fast, naming why.
    @Test func aStripIsNoPhoto() async throws {
        let strip = try ImageEncoder.png(
            try PixelBuffer(width: 65535, height: 1, values: [UInt8](repeating: 128, count: 65535)))
        try await fixture.withServer { client, _ in
            let response = try await client.execute(uri: "/api/search", method: .post, body: ByteBuffer(bytes: strip))
            #expect(response.status == .unprocessableContent && response.text.contains("65535×1"), "\(response.text)")
        }
    }
}
