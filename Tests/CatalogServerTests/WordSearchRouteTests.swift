import Catalog
import CatalogServer
import Foundation
import NeuralNetworks
import PhotoSimilarity
import TestSupport
import Testing

/// Photos found by words through `GET /api/search?q=` and the search page, on each store: the catalog's own
/// ranking, every parameter checked, an unknown word a 400 that says which.
@Suite(
    .needs(.wildPhotos, .ukbenchDev),
    .enabled(
        if: WordNetNouns.isInstalled()
            && FileManager.default.fileExists(atPath: ModelCache.path(of: ImageNetClasses.file)),
        "needs WordNet 3.0 and the class list (bash scripts/setup.sh)"))
struct WordSearchRouteTests {
    struct Result: Decodable {
        struct Found: Decodable {
            let id: Int64
            let path: String
            let score: Float
        }
        let words: [String]
        let notes: [String]
        let results: [Found]
    }

    @Test(arguments: TestStore.allCases) func photosAreFoundByWordsAsTheCatalogRanksThem(store: TestStore)
        async throws
    {
        let fixture = try await ServerFixture.shared.value
        let catalog = try Catalog(path: fixture.database, access: .readOnly)
        let suits = try catalog.photos(showing: try WordClasses().query(["suits"]), top: 3).map(\.path)
        try await fixture.withServer(try fixture.configuration(on: store)) { client, _ in
            // Every class lies under "entity": every photo shows one.
            let all = try await client.execute(uri: "/api/search?q=entity", method: .get) { try $0.json(Result.self) }
            #expect(all.words == ["entity"] && all.notes.isEmpty && all.results.count == 14)
            #expect(all.results.map(\.score) == all.results.map(\.score).sorted(by: >))
            let found = try await client.execute(uri: "/api/search?q=suits&top=3", method: .get) {
                try $0.json(Result.self)
            }
            #expect(!suits.isEmpty && found.results.map(\.path) == suits)
            let sunflower = try await client.execute(uri: "/api/search?q=sunflower", method: .get) {
                try $0.json(Result.self)
            }
            #expect(sunflower.notes.count == 1 && sunflower.notes[0].contains("daisy"))

            for bad in ["q=qwzx", "", "q=", "q=%20", "q=dog&top=0", "q=dog&top=1001", "q=dog&top=x"] {
                let response = try await client.execute(uri: "/api/search?\(bad)", method: .get)
                #expect(response.status == .badRequest, "\(bad)")
                if bad == "q=qwzx" { #expect(response.text.contains("knows no noun \\\"qwzx\\\""), "\(response.text)") }
            }

            let page = try await client.execute(uri: "/search?q=entity", method: .get) { $0.text }
            #expect(page.contains("<h1>Photos of entity</h1>") && page.contains("value=\"entity\""))
            #expect(page.components(separatedBy: "<li class=\"card\"><a href=\"/photos/").count == 15)
            let unknown = try await client.execute(uri: "/search?q=qwzx", method: .get)
            #expect(unknown.status == .ok && unknown.text.contains("knows no noun &quot;qwzx&quot;"))
        }
    }
}
