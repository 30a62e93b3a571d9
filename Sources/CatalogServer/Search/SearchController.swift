import Catalog
import FaceRecognition
import Foundation
import Hummingbird
import ImageCodecs
import ImageKernels

/// Search by upload: a photo dropped on the page, or posted to `/api/search`, is decoded with the limits
/// indexing uses, its faces found and each matched against the stored ones (who it is and how sure), and
/// its print matched against the photos' (similar photos). Nothing of the upload is kept.
struct SearchController<Context: RequestContext>: Sendable {
    let service: CatalogService
    /// Stored faces listed for each face of the upload, and similar photos.
    static var faceMatches: Int { 5 }
    static var similarCount: Int { 12 }

    func addRoutes(to router: Router<Context>) {
        router.get("/search", use: wordsPage)
        router.post("/search", use: searchPage)
        router.post("/api/search", use: search)
    }

    /// A face of the upload and whom it matches.
    struct FoundFace: Codable, Sendable {
        let x, y, width, height: Int
        /// The person of the nearest stored face, when it lies within the threshold.
        let person: Int64?
        let name: String?
        /// How sure the answer is: "sure" (well within the threshold), "likely" (within it) or "unknown".
        let confidence: String
        /// The nearest stored faces, nearest first, with their distances (embeddings: dlib's 0.6 separates people).
        let matches: [FaceHit]
    }

    struct Result: ResponseEncodable, Sendable {
        let width, height: Int
        let faces: [FoundFace]
        let printed: Bool
        let hint: String?
        let similar: [SimilarPhoto]
        /// Distances of faces at most this are taken for the same person.
        let threshold: Float
    }

    @Sendable func search(_ request: Request, context: Context) async throws -> Result {
        try await result(of: try await Upload.bytes(of: request, limit: service.configuration.uploadLimit)).result
    }

    /// What the upload holds, and its photo for the page, small.
    private func result(of bytes: [UInt8]) async throws -> (result: Result, photo: Photo) {
        let photo = try Photo(path: "upload", bytes: bytes, context: service.context)
        let analysis = try service.faceAnalysis
        let threshold = Identification.defaultThreshold(for: .embedding)
        var faces: [FoundFace] = []
        for face in try analysis.analyze(photo) {
            let query = FaceQuery(
                probe: try face.faceDescriptor(), embedding: try face.faceEmbedding(), count: Self.faceMatches)
            guard let found = try await query.run(on: service.catalog, context: service.context, updates: { _ in })
            else { throw CancellationError() }
            let nearest = found.faces.first.flatMap { $0.distance <= threshold ? $0 : nil }
            let match = try nearest.map { try service.catalog.face($0.face).face }
            faces.append(
                FoundFace(
                    x: face.x, y: face.y, width: face.width, height: face.height, person: match?.person,
                    name: match?.name,
                    confidence: nearest.map { $0.distance <= 0.8 * threshold ? "sure" : "likely" } ?? "unknown",
                    matches: found.faces))
        }
        let printed = try service.catalog.statistics().printedImages > 0
        let similar =
            printed
            ? try await service.similarSearches.similar(
                to: try service.printer.prints(of: [photo.pixels])[0], top: Self.similarCount)
            : []
        let width = Int(Double(photo.pixels.descriptor.width) * photo.scale)
        let height = Int(Double(photo.pixels.descriptor.height) * photo.scale)
        return (
            Result(
                width: width, height: height, faces: faces.sorted { ($0.x, $0.y) < ($1.x, $1.y) }, printed: printed,
                hint: printed ? nil : service.printingHint, similar: similar, threshold: threshold),
            photo
        )
    }

    // MARK: Page

    private struct SearchContent: Encodable {
        let result: ResultContent?
        /// The upload, small, as a data URL.
        let preview: String?
        var words: WordsContent? = nil
    }

    /// Photos found by the words of `?q=`, or why none could be.
    private struct WordsContent: Encodable {
        let title: String
        let notes: [String]
        let error: String?
        let results: [WordContent]
        let isEmpty: Bool
    }

    private struct WordContent: Encodable {
        let id: Int64
        let name: String
        let score: String
    }

    /// The search page: the upload form, and the photos the words of `?q=` find (the box on every page).
    @Sendable func wordsPage(_ request: Request, context: Context) throws -> Page {
        let text = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            return Page(template: "search", title: "Search", content: SearchContent(result: nil, preview: nil))
        }
        var words: WordsContent
        do {
            let found = try service.photosFound(by: request)
            words = WordsContent(
                title: found.words.joined(separator: " "), notes: found.notes, error: nil,
                results: found.results.map {
                    WordContent(
                        id: $0.id, name: PhotosController<Context>.name($0.path),
                        score: String(format: "%.3f", $0.score))
                }, isEmpty: found.results.isEmpty)
        } catch let error as HTTPError where error.status == .badRequest {
            words = WordsContent(title: text, notes: [], error: error.body, results: [], isEmpty: false)
        }
        return Page(
            template: "search", title: "Photos of \(words.title)",
            content: SearchContent(result: nil, preview: nil, words: words))
    }

    private struct FaceContent: Encodable {
        let number: Int
        let person: Int64?
        let title: String
        let confidence: String
        let distance: String
        let x, y, width, height: Int
    }

    private struct ResultContent: Encodable {
        let width, height: Int
        let faces: [FaceContent]
        let similar: [SimilarContent]
        let hint: String?
        let isEmpty: Bool
    }

    private struct SimilarContent: Encodable {
        let id: Int64
        let name: String
        let distance: String
    }

    @Sendable func searchPage(_ request: Request, context: Context) async throws -> Page {
        let (result, photo) = try await result(
            of: try await Upload.bytes(of: request, limit: service.configuration.uploadLimit))
        let preview = try service.thumbnails.preview(of: photo.pixels)
        return Page(
            template: "search", title: "Search",
            content: SearchContent(
                result: ResultContent(
                    width: result.width, height: result.height,
                    faces: result.faces.enumerated().map { number, face in
                        FaceContent(
                            number: number + 1, person: face.person,
                            title: face.name ?? face.person.map { "Unnamed \($0)" } ?? "Unknown",
                            confidence: face.confidence,
                            distance: face.matches.first.map { String(format: "%.3f", $0.distance) } ?? "–",
                            x: face.x, y: face.y, width: face.width, height: face.height)
                    },
                    similar: result.similar.map {
                        SimilarContent(
                            id: $0.image, name: PhotosController<Context>.name($0.path),
                            distance: String(format: "%.3f", $0.distance))
                    }, hint: result.hint, isEmpty: result.faces.isEmpty),
                preview: "data:image/jpeg;base64," + Data(preview).base64EncodedString()))
    }
}
