import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import ImageCodecs
import PhotoSimilarity

/// Photos: the grid of all photos (or one person's), a photo's page with its faces boxed and named, its
/// similar photos and its copies, the API under `/api/photos`, and the files: the photo itself and the
/// thumbnails of photos and faces. A file is served only as the database records it, looked up by id.
struct PhotosController<Context: RequestContext>: Sendable {
    let service: CatalogService
    static var pageSize: Int { 60 }
    /// Similar photos a photo's page shows.
    static var similarCount: Int { 12 }

    func addRoutes(to router: Router<Context>) {
        router.get("/photos", use: photosPage)
        router.get("/photos/:id", use: photoPage)
        router.get("/api/photos", use: list)
        router.get("/api/photos/:id", use: show)
        router.get("/api/photos/:id/similar", use: similar)
        router.get("/photos/:id/image", use: image)
        router.get("/photos/:id/thumbnail", use: photoThumbnail)
        router.get("/faces/:id/thumbnail", use: faceThumbnail)
    }

    // MARK: API

    /// The photos in path order, or those of `?person=`.
    @Sendable func list(_ request: Request, context: Context) throws -> Listing<PhotoSummary> {
        let paging = try Paging(request, size: Self.pageSize)
        let page = try service.catalog.photos(of: try person(request), offset: paging.offset, limit: paging.size)
        return try paging.listing(page.items, total: page.total)
    }

    struct PhotoDetail: ResponseEncodable, Sendable {
        let id: Int64
        let path: String
        let width, height: Int
        let bytes: Int64
        let faces: [PhotoFace]
        /// Whether the photo has a print, which similar photos and duplicates need.
        let printed: Bool
    }

    @Sendable func show(_ request: Request, context: Context) throws -> PhotoDetail {
        let id = try request.id(in: context)
        return try detail(id, try service.catalog.image(id), printed: try service.catalog.hasPrint(image: id))
    }

    struct Similar: ResponseEncodable, Sendable {
        let printed: Bool
        /// What to run when `printed` is false.
        let hint: String?
        let photos: [SimilarPhoto]
    }

    /// The photos nearest this one by print (`?top=`, 12 by default, at most 100), itself left out.
    @Sendable func similar(_ request: Request, context: Context) async throws -> Similar {
        let id = try request.id(in: context)
        let top = try request.number("top", in: 1...100).map { Int($0) }
        _ = try service.catalog.image(id)
        return try await similarPhotos(to: id, top: top ?? Self.similarCount)
    }

    // MARK: Files

    /// The photo's file as it was indexed, streamed with its own type; 404 where the file is gone, or is no
    /// longer the photo that was indexed (other bytes, a link to another file now), or is no photo.
    @Sendable func image(_ request: Request, context: Context) throws -> Response {
        let file = try Self.indexedFile(try service.catalog.image(try request.id(in: context)))
        let head = try Self.reading(file.record) { () throws(IndexedFile.Stale) in try file.read(from: 0, count: 8) }
        guard let format = ImageFormat(sniffing: head) else {
            throw HTTPError(.notFound, message: "photo \(file.record.id ?? 0) is not an image file")
        }
        let body = ResponseBody(contentLength: file.size) { writer in
            var offset = 0
            while offset < file.size {
                let chunk = try file.read(from: offset, count: IndexedFile.chunkSize)
                try await writer.write(ByteBuffer(bytes: chunk))
                offset += chunk.count
            }
            try await writer.finish(nil)
        }
        return Self.file(
            body, type: "image/\(format == .pnm ? "x-portable-anymap" : format.rawValue)",
            tag: "\"\(file.record.hash)\"", request: request)
    }

    @Sendable func photoThumbnail(_ request: Request, context: Context) throws -> Response {
        let file = try Self.indexedFile(try service.catalog.image(try request.id(in: context)))
        return try thumbnail(request) { try service.thumbnails.photo(file) }
    }

    @Sendable func faceThumbnail(_ request: Request, context: Context) throws -> Response {
        let (image, face) = try service.catalog.face(try request.id(in: context))
        let file = try Self.indexedFile(try service.catalog.image(image))
        return try thumbnail(request) { try service.thumbnails.face(face, in: file) }
    }

    /// The photo's file, checked to be still the photo that was indexed; 404 where it is not.
    static func indexedFile(_ image: ImageRecord) throws -> IndexedFile {
        try reading(image) { () throws(IndexedFile.Stale) in try IndexedFile(image) }
    }

    /// What `read` reads of the photo's file, or 404 where the file is no longer the photo that was indexed.
    private static func reading<Value>(_ image: ImageRecord, _ read: () throws(IndexedFile.Stale) -> Value) throws
        -> Value
    {
        do { return try read() } catch {
            throw HTTPError(
                .notFound, message: "\(image.path): \(error); `cbir index` brings the catalog up to date")
        }
    }

    /// A thumbnail, or 404 where the photo's file cannot be decoded or read any more.
    private func thumbnail(_ request: Request, make: () throws -> ThumbnailCache.Thumbnail) throws -> Response {
        let thumbnail: ThumbnailCache.Thumbnail
        do {
            thumbnail = try make()
        } catch let error as ImageCodecError {
            throw HTTPError(.notFound, message: "the photo cannot be shown: \(error)")
        } catch let error as IndexedFile.Stale {
            throw HTTPError(
                .notFound, message: "the photo's file is \(error); `cbir index` brings the catalog up to date")
        }
        return Self.file(thumbnail.bytes, type: "image/jpeg", tag: thumbnail.tag, request: request)
    }

    /// Bytes as a file with its entity tag (see the other `file`).
    static func file(_ bytes: [UInt8], type: String, tag: String, request: Request) -> Response {
        file(ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)), type: type, tag: tag, request: request)
    }

    /// A file with its entity tag, kept by the browser for a day and checked after: 304 when it has it already.
    static func file(_ body: ResponseBody, type: String, tag: String, request: Request) -> Response {
        let headers: HTTPFields = [.eTag: tag, .cacheControl: "private, max-age=86400"]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == tag
        }) == true {
            return Response(status: .notModified, headers: headers)
        }
        var all = headers
        all[.contentType] = type
        return Response(status: .ok, headers: all, body: body)
    }

    // MARK: Pages

    private struct PhotoCard: Encodable {
        let id: Int64
        let name: String
        /// "2 faces"; nil on a photo's page, whose cards give their distance instead.
        let faces: String?
        let distance: String?
    }

    private struct PhotosContent: Encodable {
        let photos: [PhotoCard]
        /// "14 photos".
        let total: String
        let person: Person?
        let pager: Paging.Links
    }

    @Sendable func photosPage(_ request: Request, context: Context) throws -> Page {
        let paging = try Paging(request, size: Self.pageSize)
        let person = try person(request)
        let page = try service.catalog.photos(of: person, offset: paging.offset, limit: paging.size)
        let owner = try person.map { try service.catalog.person(String($0)) }
        return Page(
            template: "photos", title: owner.map { "Photos of \($0.name ?? "unnamed \($0.id)")" } ?? "Photos",
            content: PhotosContent(
                photos: page.items.map {
                    PhotoCard(id: $0.id, name: Self.name($0.path), faces: counted($0.faces, "face"), distance: nil)
                }, total: counted(page.total, "photo"), person: owner,
                pager: try paging.links(
                    total: page.total, path: "/photos", query: person.map { [("person", String($0))] } ?? [])))
    }

    private struct FaceBox: Encodable {
        let id: Int64
        let person: Int64?
        let title: String
        /// Where the box lies, in the file's pixels, and where its name goes: above it, or inside where
        /// the box touches the top.
        let x, y, width, height: Int
        let labelY: Int
        let labelSize: Int
    }

    private struct PhotoContent: Encodable {
        let photo: PhotoDetail
        let name: String
        let faces: [FaceBox]
        let similar: [PhotoCard]
        let duplicates: [PhotoCard]
        let hint: String?
        let megabytes: String
    }

    @Sendable func photoPage(_ request: Request, context: Context) async throws -> Page {
        let id = try request.id(in: context)
        let image = try service.catalog.image(id)
        let similar = try await similarPhotos(to: id, top: Self.similarCount)
        let photo = try detail(id, image, printed: similar.printed)
        let labelSize = max(12, max(photo.width, photo.height) / 36)
        func cards(_ photos: [SimilarPhoto]) -> [PhotoCard] {
            photos.map {
                PhotoCard(
                    id: $0.image, name: Self.name($0.path), faces: nil, distance: String(format: "%.3f", $0.distance))
            }
        }
        return Page(
            template: "photo", title: Self.name(photo.path),
            content: PhotoContent(
                photo: photo, name: Self.name(photo.path),
                faces: photo.faces.map {
                    FaceBox(
                        id: $0.id, person: $0.person, title: $0.name ?? $0.person.map { "Unnamed \($0)" } ?? "No one",
                        x: $0.x, y: $0.y, width: $0.width, height: $0.height,
                        labelY: $0.y > labelSize ? $0.y - labelSize / 3 : $0.y + labelSize, labelSize: labelSize)
                },
                similar: cards(similar.photos),
                duplicates: cards(try service.catalog.copies(of: id, among: similar.photos, context: service.context)),
                hint: similar.hint, megabytes: String(format: "%.1f", Double(photo.bytes) / 1e6)))
    }

    // MARK: Reading

    /// The photo `id`, stored as `image`, with its faces.
    private func detail(_ id: Int64, _ image: ImageRecord, printed: Bool) throws -> PhotoDetail {
        PhotoDetail(
            id: id, path: image.path, width: image.width, height: image.height, bytes: image.size,
            faces: try service.catalog.faces(inImage: id), printed: printed)
    }

    /// The photos nearest the indexed photo `id` by print.
    private func similarPhotos(to id: Int64, top: Int) async throws -> Similar {
        guard let print = try service.catalog.storedPrint(ofImage: id) else {
            return Similar(printed: false, hint: service.printingHint, photos: [])
        }
        let found = try await service.similarSearches.similar(to: print, top: top + 1)
        return Similar(printed: true, hint: nil, photos: Array(found.filter { $0.image != id }.prefix(top)))
    }

    /// The `?person=` a request names, if any.
    private func person(_ request: Request) throws -> Int64? {
        try request.number("person", in: 1...Int64.max)
    }

    /// A file's name, for captions.
    static func name(_ path: String) -> String { (path as NSString).lastPathComponent }
}
