import Catalog
import CatalogServer
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import ImageCodecs
import TestSupport
import Testing

/// Every route of the JSON API and the files, in process, with good and bad input, on a database of real photos.
@Suite(.serialized, .needs(.wildPhotos, .ukbenchDev)) struct APIRouteTests {
    struct Stats: Decodable {
        let images, faces, people, printedImages, labelledFaces: Int
        let writable: Bool
        let lastRun: IndexingRecord?
    }

    struct Listing<Item: Decodable>: Decodable {
        let items: [Item]
        let total, page, pageSize: Int
    }

    struct PersonDetail: Decodable {
        let person: Person
        let faces: Listing<Face>
        struct Face: Decodable { let id, image: Int64 }
    }

    struct PhotoDetail: Decodable {
        let id: Int64
        let path: String
        let width, height: Int
        let faces: [PhotoFace]
        let printed: Bool
    }

    struct Similar: Decodable {
        let printed: Bool
        let photos: [SimilarPhoto]
    }

    struct Duplicates: Decodable {
        let printedPhotos, bytes: Int
        let groups: Listing<DuplicateGroup>
    }

    struct ErrorBody: Decodable {
        struct Message: Decodable { let message: String }
        let error: Message
    }

    let fixture: ServerFixture
    init() async throws { fixture = try await ServerFixture.shared.value }

    @Test(arguments: TestStore.allCases) func statsCountTheDatabaseAndItsLastRun(store: TestStore) async throws {
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let stats = try await client.execute(uri: "/api/stats", method: .get) { try $0.json(Stats.self) }
            #expect(stats.images == 14 && stats.printedImages == 14 && stats.faces >= 9 && stats.writable)
            #expect(stats.people >= 5 && stats.labelledFaces >= 1)
            #expect(stats.lastRun?.indexed == 14 && stats.lastRun?.finished != nil)
        }
    }

    @Test(arguments: TestStore.allCases) func peopleArePagedAndNamedChangedMergedAndHidden(store: TestStore)
        async throws
    {
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(Listing<Person>.self)
            }
            #expect(people.total == people.items.count && people.page == 1 && people.items.count >= 5)
            #expect(people.items.contains { $0.name == "Barack Obama" })
            let first = people.items[0], second = people.items[1]
            for bad in ["/api/people?page=0", "/api/people?page=x", "/api/people?page=-1"] {
                #expect(try await client.execute(uri: bad, method: .get).status == .badRequest, "\(bad)")
            }
            let detail = try await client.execute(uri: "/api/people/\(first.id)", method: .get) {
                try $0.json(PersonDetail.self)
            }
            #expect(detail.person.id == first.id && detail.faces.total == first.faces)
            for unknown in ["/api/people/999999", "/api/people/abc", "/api/people/0", "/api/people/-3"] {
                #expect(try await client.execute(uri: unknown, method: .get).status == .notFound, "\(unknown)")
            }

            let renamed = try await client.execute(
                uri: "/api/people/\(second.id)", method: .post, body: jsonBody(#"{"name": "  Ann Other "}"#)
            ) { try $0.json(Person.self) }
            #expect(renamed.name == "Ann Other")
            let cleared = try await client.execute(
                uri: "/api/people/\(second.id)", method: .post, body: jsonBody(#"{"name": null}"#)
            ) { try $0.json(Person.self) }
            #expect(cleared.name == nil)
            for body in [#"{"name": 5}"#, "{not json", #"{"hidden": "yes"}"#, ""] {
                let status = try await client.execute(
                    uri: "/api/people/\(second.id)", method: .post, body: jsonBody(body)
                ).status
                #expect(status == .badRequest, "\(body): \(status)")
            }
            let taken = try await client.execute(
                uri: "/api/people/\(second.id)", method: .post, body: jsonBody(#"{"name": "Barack Obama"}"#))
            #expect(taken.status == .badRequest && taken.text.contains("merge"))
            let long = try await client.execute(
                uri: "/api/people/\(second.id)", method: .post,
                body: jsonBody(#"{"name": "\#(String(repeating: "a", count: 300))"}"#))
            #expect(long.status == .badRequest)

            let hidden = try await client.execute(
                uri: "/api/people/\(second.id)", method: .post, body: jsonBody(#"{"hidden": true}"#)
            ) { try $0.json(Person.self) }
            #expect(hidden.hidden)
            let shown = try await client.execute(uri: "/api/people", method: .get) { try $0.json(Listing<Person>.self) }
            #expect(!shown.items.contains { $0.id == second.id })
            let all = try await client.execute(uri: "/api/people?hidden=true", method: .get) {
                try $0.json(Listing<Person>.self)
            }
            #expect(all.items.contains { $0.id == second.id })

            #expect(
                try await client.execute(
                    uri: "/api/people/\(second.id)/merge", method: .post, body: jsonBody(#"{"into": 999999}"#)
                ).status == .notFound)
            #expect(
                try await client.execute(
                    uri: "/api/people/\(second.id)/merge", method: .post, body: jsonBody(#"{"into": \#(second.id)}"#)
                ).status == .badRequest)
            let merged = try await client.execute(
                uri: "/api/people/\(second.id)/merge", method: .post, body: jsonBody(#"{"into": \#(first.id)}"#)
            ) { try $0.json(Person.self) }
            #expect(merged.id == first.id && merged.faces == first.faces + second.faces)
            #expect(try await client.execute(uri: "/api/people/\(second.id)", method: .get).status == .notFound)
        }
    }

    @Test(arguments: TestStore.allCases) func aFaceMovesOutOfItsPersonAndIntoAnother(store: TestStore) async throws {
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let people = try await client.execute(uri: "/api/people", method: .get) {
                try $0.json(Listing<Person>.self)
            }
            let person = try #require(people.items.first { $0.faces >= 1 }), other = try #require(people.items.last)
            let face = try #require(person.representative)
            let out = try await client.execute(
                uri: "/api/faces/\(face)", method: .post, body: jsonBody(#"{"person": null}"#)
            ) { try $0.json(PhotoFace.self) }
            #expect(out.id == face && out.person == nil && out.assignment == .manual)
            let moved = try await client.execute(
                uri: "/api/faces/\(face)", method: .post, body: jsonBody(#"{"person": \#(other.id)}"#)
            ) { try $0.json(PhotoFace.self) }
            #expect(moved.person == other.id)
            #expect(
                try await client.execute(uri: "/api/faces/999999", method: .post, body: jsonBody(#"{"person": null}"#))
                    .status == .notFound)
            #expect(
                try await client.execute(
                    uri: "/api/faces/\(face)", method: .post, body: jsonBody(#"{"person": 999999}"#)
                )
                .status == .notFound)
        }
    }

    /// A face split off its person by hand is suggested back to that person (and the person to it), and
    /// merged back it is suggested no more; ids that are no person's are refused.
    @Test(arguments: TestStore.allCases) func aPersonSplitInTwoIsSuggestedToItself(store: TestStore) async throws {
        let configuration = try fixture.configuration(on: store)
        let catalog = try Catalog(path: configuration.database)
        let largest = try #require(try catalog.people().first)
        let split = try await catalog.split(faces: [try #require(largest.representative)])
        try await fixture.withServer(configuration) { client, _ in
            let suggested = try await client.execute(uri: "/api/people/\(largest.id)/suggestions", method: .get) {
                try $0.json(PersonSuggestions.self)
            }
            #expect(suggested.people.first?.person.id == split, "\(suggested)")
            #expect(suggested.people.allSatisfy { $0.distance.isFinite && $0.distance >= 0 })
            let back = try await client.execute(uri: "/api/people/\(split)/suggestions", method: .get) {
                try $0.json(PersonSuggestions.self)
            }
            #expect(back.people.first?.person.id == largest.id, "\(back)")
            _ = try await client.execute(
                uri: "/api/people/\(split)/merge", method: .post, body: jsonBody(#"{"into": \#(largest.id)}"#))
            let after = try await client.execute(uri: "/api/people/\(largest.id)/suggestions", method: .get) {
                try $0.json(PersonSuggestions.self)
            }
            #expect(!after.people.contains { $0.person.id == split })
            for unknown in ["/api/people/999999/suggestions", "/api/people/abc/suggestions"] {
                #expect(try await client.execute(uri: unknown, method: .get).status == .notFound, "\(unknown)")
            }
        }
    }

    @Test(arguments: TestStore.allCases) func photosListWithTheirFacesSimilarPhotosAndCopies(store: TestStore)
        async throws
    {
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let photos = try await client.execute(uri: "/api/photos", method: .get) {
                try $0.json(Listing<PhotoSummary>.self)
            }
            #expect(photos.total == 14 && photos.items.map(\.path) == photos.items.map(\.path).sorted())
            let obama = try #require(photos.items.first { $0.path.hasSuffix("/train/obama/obama.jpg") })
            let detail = try await client.execute(uri: "/api/photos/\(obama.id)", method: .get) {
                try $0.json(PhotoDetail.self)
            }
            #expect(detail.printed && detail.faces.count == obama.faces && detail.faces.first?.name == "Barack Obama")
            let person = try #require(detail.faces.first?.person)
            let his = try await client.execute(uri: "/api/photos?person=\(person)", method: .get) {
                try $0.json(Listing<PhotoSummary>.self)
            }
            #expect(his.items.contains { $0.id == obama.id } && his.total < photos.total)
            #expect(try await client.execute(uri: "/api/photos?person=x", method: .get).status == .badRequest)

            let view = try #require(photos.items.first { $0.path.hasSuffix("ukbench00000.jpg") })
            let similar = try await client.execute(uri: "/api/photos/\(view.id)/similar?top=3", method: .get) {
                try $0.json(Similar.self)
            }
            // The other three views of the object come first, the photo itself left out.
            #expect(similar.printed && similar.photos.count == 3 && !similar.photos.contains { $0.image == view.id })
            #expect(similar.photos.allSatisfy { $0.path.contains("ukbench0000") }, "\(similar.photos.map(\.path))")
            for bad in ["top=0", "top=101", "top=x"] {
                #expect(
                    try await client.execute(uri: "/api/photos/\(view.id)/similar?\(bad)", method: .get).status
                        == .badRequest)
            }
            for unknown in ["/api/photos/999999", "/api/photos/999999/similar", "/api/photos/x"] {
                #expect(try await client.execute(uri: unknown, method: .get).status == .notFound, "\(unknown)")
            }

            let duplicates = try await client.execute(uri: "/api/duplicates", method: .get) {
                try $0.json(Duplicates.self)
            }
            let group = try #require(
                duplicates.groups.items.first { $0.photos.contains { $0.path.hasSuffix("biden copy.jpg") } })
            #expect(group.photos.count == 2 && group.photos.allSatisfy { $0.path.contains("biden") } && group.bytes > 0)
            #expect(try await client.execute(uri: "/api/duplicates?threshold=3", method: .get).status == .badRequest)
            let loose = try await client.execute(uri: "/api/duplicates?similar=true", method: .get) {
                try $0.json(Duplicates.self)
            }
            #expect(loose.groups.items.contains { $0.photos.filter { $0.path.contains("ukbench") }.count >= 2 })
        }
    }

    /// The cleanup's routes plan what the page chose and refuse what it could not have chosen: a group named
    /// otherwise than it is, a group given twice, none; moving and undoing on a database opened read-only.
    /// (The moves themselves, and their undo, are `cbir serve`'s test: they need a trash of the test's own.)
    @Test(arguments: TestStore.allCases) func cleanupsArePlannedAsChosenAndRefusedOtherwise(store: TestStore)
        async throws
    {
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let duplicates = try await client.execute(uri: "/api/duplicates", method: .get) {
                try $0.json(Duplicates.self)
            }
            let group = try #require(
                duplicates.groups.items.first { $0.photos.contains { $0.path.hasSuffix("biden copy.jpg") } })
            let copy = try #require(group.photos.first { $0.path.hasSuffix("biden copy.jpg") })
            let original = try #require(group.photos.first { $0 != copy })
            let plan = try await client.execute(
                uri: "/api/duplicates/plan", method: .post,
                body: jsonBody(#"{"groups": [{"keep": \#(copy.image), "move": [\#(original.image)]}]}"#)
            ) { try $0.json(CleanupPlan.self) }
            #expect(plan.moves.map(\.path) == [original.path] && plan.moves.first?.keeper == copy.path)
            #expect(plan.leftAlone.isEmpty && plan.bytes > 0)
            for (body, status) in [
                (#"{"groups": [{"keep": \#(copy.image), "move": []}]}"#, HTTPResponse.Status.conflict),
                (#"{"groups": [{"keep": 999999, "move": [\#(original.image)]}]}"#, .conflict),
                (
                    #"{"groups": [{"keep": \#(copy.image), "move": [\#(original.image), \#(original.image)]}]}"#,
                    .conflict
                ),
                (
                    #"{"groups": [{"keep": \#(copy.image), "move": [\#(original.image)]}, "#
                        + #"{"keep": \#(original.image), "move": [\#(copy.image)]}]}"#, .badRequest
                ),
                (#"{"groups": []}"#, .badRequest), (#"{"groups": "all"}"#, .badRequest), ("", .badRequest),
            ] {
                let refused = try await client.execute(uri: "/api/duplicates/plan", method: .post, body: jsonBody(body))
                #expect(refused.status == status, "\(body): \(refused.text)")
            }
            let unsaid = try await client.execute(
                uri: "/api/duplicates/plan?threshold=0.3", method: .post,
                body: jsonBody(#"{"groups": [{"keep": \#(copy.image), "move": [\#(original.image)]}]}"#))
            #expect(unsaid.status == .badRequest && unsaid.text.contains("similar=true"), "\(unsaid.text)")
            let runs = try await client.execute(uri: "/api/duplicates/runs", method: .get) {
                try $0.json([CleanupRun].self)
            }
            #expect(runs.isEmpty)
            #expect(
                try await client.execute(uri: "/api/duplicates/runs/999999/undo", method: .post).status == .notFound)
        }
        try await fixture.withServer(try fixture.configuration(readOnly: true)) { client, _ in
            let duplicates = try await client.execute(uri: "/api/duplicates", method: .get) {
                try $0.json(Duplicates.self)
            }
            let group = try #require(duplicates.groups.items.first)
            let body =
                #"{"groups": [{"keep": \#(group.photos[0].image), "move": \#(group.photos.dropFirst().map(\.image))}]}"#
            let refused = try await client.execute(uri: "/api/duplicates/cleanup", method: .post, body: jsonBody(body))
            #expect(refused.status == .forbidden && refused.text.contains("read-only"), "\(refused.text)")
            #expect(try await client.execute(uri: "/api/duplicates/runs/1/undo", method: .post).status == .forbidden)
        }
    }

    @Test func filesAreServedByIdWithTagsAndThumbnailsMadeOnTheKernels() async throws {
        try await fixture.withServer { client, configuration in
            let photos = try await client.execute(uri: "/api/photos", method: .get) {
                try $0.json(Listing<PhotoSummary>.self)
            }
            let photo = try #require(photos.items.first { $0.path.hasSuffix("/train/obama/obama.jpg") })
            let original = try await client.execute(uri: "/photos/\(photo.id)/image", method: .get)
            #expect(original.status == .ok && original.headers[.contentType] == "image/jpeg")
            #expect(Array(buffer: original.body) == (try ImageDecoder.contents(of: photo.path)))
            let tag = try #require(original.headers[.eTag])
            let again = try await client.execute(
                uri: "/photos/\(photo.id)/image", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)

            let thumbnail = try await client.execute(uri: "/photos/\(photo.id)/thumbnail", method: .get)
            #expect(thumbnail.status == .ok && thumbnail.headers[.contentType] == "image/jpeg")
            let small = try ImageDecoder.decode(Array(buffer: thumbnail.body), path: "thumbnail")
            #expect(max(small.descriptor.width, small.descriptor.height) == 360 && small.descriptor.channels == 3)
            // Kept beside the database, and the same bytes from there.
            let kept = try FileManager.default.contentsOfDirectory(atPath: configuration.database + "-thumbnails")
            #expect(kept.contains { $0.hasPrefix("photo-\(photo.id)-") })
            let cached = try await client.execute(uri: "/photos/\(photo.id)/thumbnail", method: .get)
            #expect(cached.body == thumbnail.body && cached.headers[.eTag] == thumbnail.headers[.eTag])

            let detail = try await client.execute(uri: "/api/photos/\(photo.id)", method: .get) {
                try $0.json(PhotoDetail.self)
            }
            let face = try #require(detail.faces.first)
            let faceThumbnail = try await client.execute(uri: "/faces/\(face.id)/thumbnail", method: .get)
            let square = try ImageDecoder.decode(Array(buffer: faceThumbnail.body), path: "face")
            #expect(square.descriptor.width == 160 && square.descriptor.height == 160)

            for unknown in [
                "/photos/999999/image", "/photos/999999/thumbnail", "/faces/999999/thumbnail", "/photos/x/image",
                "/photos/..%2F..%2Fetc%2Fpasswd", "/photos/..%2F..%2Fetc%2Fpasswd/image", "/photos/1/../../etc/passwd",
                "/assets/..%2F..%2FPackage.swift", "/assets/site.css%00", "/etc/passwd",
            ] {
                let response = try await client.execute(uri: unknown, method: .get)
                #expect(response.status == .notFound, "\(unknown): \(response.status)")
                #expect(!response.text.contains("root:"))
            }
        }
    }

    @Test func aFileGoneFromDiskIsNotFound() async throws {
        let configuration = try fixture.configuration()
        let catalog = try Catalog(path: configuration.database)
        // Point one photo at a file that is not there.
        let id = try await catalog.write { db in
            try db.execute(
                sql: "UPDATE images SET path = '/nonexistent/gone.jpg' WHERE id = (SELECT MIN(id) FROM images)")
            return try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM images") ?? 0
        }
        try await fixture.withServer(configuration) { client, _ in
            for uri in ["/photos/\(id)/image", "/photos/\(id)/thumbnail"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound && response.text.contains("gone.jpg"), "\(uri): \(response.text)")
            }
        }
    }

    @Test(arguments: TestStore.allCases) func searchByUploadNamesTheFacesAndFindsSimilarPhotos(store: TestStore)
        async throws
    {
        let probe = try ImageDecoder.contents(of: SharedData.root + "/wild-photos/test/obama1.jpg")
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            let raw = try await client.execute(
                uri: "/api/search", method: .post, headers: [.contentType: "image/jpeg"], body: ByteBuffer(bytes: probe)
            )
            #expect(raw.status == .ok, "\(raw.text)")
            let result = try raw.json(SearchResult.self)
            let face = try #require(result.faces.first)
            #expect(face.name == "Barack Obama" && face.confidence != "unknown", "\(result)")
            #expect(result.printed && result.similar.count > 0)

            let boundary = "----cbir-test-\(UUID().uuidString)"
            var form = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n".utf8)
            let header =
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"o.jpg\"\r\n"
                + "Content-Type: image/jpeg\r\n\r\n"
            form += Data(header.utf8)
            form += Data(probe) + Data("\r\n--\(boundary)--\r\n".utf8)
            let multipart = try await client.execute(
                uri: "/api/search", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"],
                body: ByteBuffer(bytes: form)
            ) { try $0.json(SearchResult.self) }
            #expect(multipart.faces.first?.name == "Barack Obama")

            let garbage = try await client.execute(
                uri: "/api/search", method: .post, body: ByteBuffer(bytes: [UInt8](repeating: 7, count: 5000)))
            #expect(garbage.status == .unprocessableContent)
            let truncated = try await client.execute(
                uri: "/api/search", method: .post, body: ByteBuffer(bytes: probe.prefix(2000)))
            #expect(truncated.status == .unprocessableContent, "\(truncated.text)")
            #expect(try await client.execute(uri: "/api/search", method: .post).status == .badRequest)
            let noFile = try await client.execute(
                uri: "/api/search", method: .post, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"],
                body: ByteBuffer(
                    string:
                        "--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--\(boundary)--\r\n"))
            #expect(noFile.status == .badRequest)
        }
    }

    @Test func uploadsOverTheLimitAreRefused() async throws {
        let probe = try ImageDecoder.contents(of: SharedData.root + "/wild-photos/test/obama1.jpg")
        try await fixture.withServer(try fixture.configuration(uploadLimit: probe.count - 1)) { client, _ in
            let response = try await client.execute(uri: "/api/search", method: .post, body: ByteBuffer(bytes: probe))
            #expect(response.status == .contentTooLarge)
        }
    }

    struct SearchResult: Decodable {
        struct Face: Decodable {
            let name: String?
            let confidence: String
            let matches: [FaceHit]
        }
        let faces: [Face]
        let printed: Bool
        let similar: [SimilarPhoto]
    }
}
