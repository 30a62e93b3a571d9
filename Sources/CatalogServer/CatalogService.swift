import Catalog
import FaceRecognition
import Foundation
import Hummingbird
import ImageCodecs
import ImageKernels
import Logging
import PhotoSimilarity
import Synchronization

/// The catalog a server serves and what its pages need besides: the device searches run on, the models
/// an upload is analysed with (loaded at the first upload), the thumbnails, and the duplicate groups of the
/// prints as they stand (found again once a print changes).
final class CatalogService: Sendable {
    let catalog: Catalog
    /// False for a database opened read-only: pages then offer no changes and the API refuses them.
    let isWritable: Bool
    let configuration: ServerConfiguration
    /// Where searches and thumbnails render.
    let context: RenderContext
    let thumbnails: ThumbnailCache
    /// Similar-photo searches, batched when they arrive together.
    let similarSearches: SimilarSearches
    /// Where requests run where the catalog's calls wait on a server; nil: on Swift's own threads, as a SQLite
    /// file's calls, which wait only on this machine, run fastest (a quarter more people lists a second).
    let blockingThreads: BlockingThreads?

    private struct Models: Sendable {
        let faces: FaceAnalysis
        let printer: PhotoPrinter
    }
    private let models = Mutex<Models?>(nil)
    private let vocabulary = Mutex<WordClasses?>(nil)
    private let duplicates = KeptUntilChanged<[DuplicateGroup]>()
    private let peopleList = KeptUntilChanged<[Person]>()
    private let suggested = KeptUntilChanged<PersonSuggestions>()

    /// Opens the database for writing where it can be written and is not to be served read-only, else read-only.
    init(configuration: ServerConfiguration) throws {
        let path = configuration.database
        guard PostgresLocation.isURL(path) || FileManager.default.fileExists(atPath: path) else {
            throw CatalogError.storage(path: path, reason: "no such database (run `cbir index <folder> --db \(path)`)")
        }
        // Where reads go, when a replica is read from: a line on the server's log each time it changes.
        let logger = Logger(label: "cbir serve")
        let log: @Sendable (String) -> Void = { logger.notice("\($0)") }
        let replica = configuration.readReplica
        do {
            guard !configuration.readOnly else { throw CatalogError.readOnly(path: path) }
            catalog = try Catalog(path: path, replica: replica, log: log)
            isWritable = true
        } catch CatalogError.readOnly {
            catalog = try Catalog(path: path, access: .readOnly, replica: replica, log: log)
            isWritable = false
        }
        self.configuration = configuration
        context = try RenderContext.orDefault(configuration.context, for: .search)
        thumbnails = ThumbnailCache(folder: catalog.files.thumbnails, context: context)
        blockingThreads = catalog.waitsOnRoundTrips ? BlockingThreads.shared : nil
        similarSearches = SimilarSearches(catalog: catalog, context: context, threads: blockingThreads)
    }

    /// The face analysis and the photo printer, loaded once.
    private func loadedModels() throws -> Models {
        try models.withLock { models in
            if let models { return models }
            let loaded = Models(
                faces: try FaceAnalysis(context: configuration.context, detector: configuration.detector),
                printer: try PhotoPrinter(context: configuration.context))
            models = loaded
            return loaded
        }
    }

    /// WordNet's nouns and ImageNet's classes, to find photos by words; read at the first such search.
    var wordClasses: WordClasses {
        get throws {
            try vocabulary.withLock { vocabulary in
                if let vocabulary { return vocabulary }
                let loaded = try WordClasses()
                vocabulary = loaded
                return loaded
            }
        }
    }

    var faceAnalysis: FaceAnalysis { get throws { try loadedModels().faces } }
    var printer: PhotoPrinter { get throws { try loadedModels().printer } }

    /// The groups of `kind` among the photos whose files are as they were indexed, kept until a print changes or
    /// another file is found changed, and the photos left out for their files.
    func duplicateGroups(_ kind: DuplicateKind) throws -> (groups: [DuplicateGroup], stale: [StalePhoto]) {
        let stale = try catalog.staleDuplicateCandidates()
        let key =
            "\(kind) \(try catalog.printsTag().base64EncodedString()) "
            + ContentHash.of(stale.map { String($0.image) }.joined(separator: ",").utf8)
        let groups = try duplicates.value(for: key) {
            try catalog.duplicateGroups(kind, context: context, excluding: Set(stale.map(\.image)))
        }
        return (groups, stale)
    }

    /// Every person, most faces first, kept until a face or a person changes.
    func people() throws -> [Person] {
        try peopleList.value(for: try catalog.peopleTag().base64EncodedString()) { try catalog.people() }
    }

    /// The people and faces most likely to be `person`, kept (for the last person asked about) until a face
    /// or a person changes.
    func suggestions(for person: Int64) throws -> PersonSuggestions {
        try suggested.value(for: "\(person) \(try catalog.peopleTag().base64EncodedString())") {
            try catalog.suggestions(for: person, context: context)
        }
    }
}

/// A value kept while the key it was made under (a tag of the tables it was read from) stays the same.
final class KeptUntilChanged<Value: Sendable>: Sendable {
    private let kept = Mutex<(key: String, value: Value)?>(nil)

    func value(for key: String, make: () throws -> Value) throws -> Value {
        if let kept = kept.withLock({ $0 }), kept.key == key { return kept.value }
        let value = try make()
        kept.withLock { $0 = (key, value) }
        return value
    }
}

extension CatalogService {
    /// Refuses a change to a database opened read-only.
    func requireWritable() throws {
        guard isWritable else {
            throw HTTPError(.forbidden, message: "the database is read-only here: \(catalog.path)")
        }
    }
}

extension CatalogService {
    /// What to run to give the photos prints, where they have none (a database indexed before prints).
    var printingHint: String {
        "This photo has no print yet: run `cbir index <folder> --db \(catalog.path)` to make prints "
            + "(similar photos and duplicates need them)."
    }
}
