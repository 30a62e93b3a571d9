import Foundation
import HTTPTypes
import Hummingbird

/// The image a search request uploads: the whole body, or the first file of a `multipart/form-data`
/// form (what a page's file field sends), no more than a limit in bytes.
enum Upload {
    /// The uploaded file's bytes; 413 beyond `limit` (refused before reading where the request says its
    /// length), 400 for an empty upload or a form without a file.
    static func bytes(of request: Request, limit: Int) async throws -> [UInt8] {
        // A form's boundaries and headers come on top of the file.
        let allowance = limit + 16 * 1024
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > allowance {
            throw HTTPError(.contentTooLarge, message: "uploads are limited to \(limit / (1 << 20)) MB")
        }
        var body = try await request.body.collect(upTo: allowance)
        var bytes = body.readBytes(length: body.readableBytes) ?? []
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data") {
            bytes = try file(in: bytes, contentType: type)
        }
        guard bytes.count <= limit else {
            throw HTTPError(.contentTooLarge, message: "uploads are limited to \(limit / (1 << 20)) MB")
        }
        guard !bytes.isEmpty else { throw HTTPError(.badRequest, message: "the upload is empty") }
        return bytes
    }

    /// The content of the first part of a multipart body that is a file (its disposition names a filename).
    static func file(in body: [UInt8], contentType: String) throws -> [UInt8] {
        guard let boundary = boundary(of: contentType) else {
            throw HTTPError(.badRequest, message: "a multipart upload without a boundary")
        }
        let delimiter = Array("--\(boundary)".utf8), separator = Array("\r\n\r\n".utf8)
        guard var start = body.firstRange(of: delimiter)?.upperBound else {
            throw HTTPError(.badRequest, message: "a multipart upload without parts")
        }
        let next = Array("\r\n--\(boundary)".utf8)
        while let end = body[start...].firstRange(of: next) {
            let part = body[start..<end.lowerBound]
            if let split = part.firstRange(of: separator) {
                let headers = String(decoding: part[..<split.lowerBound], as: UTF8.self).lowercased()
                if headers.contains("content-disposition") && headers.contains("filename=") {
                    return Array(part[split.upperBound...])
                }
            }
            start = end.upperBound
        }
        throw HTTPError(.badRequest, message: "the form holds no file")
    }

    /// The `boundary` parameter of a multipart content type, unquoted.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }
}
