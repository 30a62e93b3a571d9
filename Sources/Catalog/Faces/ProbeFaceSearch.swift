import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// Which face of a probe photo to ask about.
public enum FaceChoice: Sendable, Equatable {
    /// The widest face.
    case largest
    /// Face `n` counting from 1, left to right.
    case number(Int)

    /// The chosen one of a photo's faces (sorted left to right), by its index.
    public func index(among faces: [FaceRecord], of path: String) throws(CatalogError) -> Int {
        guard !faces.isEmpty else { throw .probe(path: path, reason: "no face found") }
        switch self {
        case .largest:
            return faces.indices.max { faces[$0].width < faces[$1].width } ?? 0
        case .number(let number):
            guard (1...faces.count).contains(number) else {
                throw .probe(
                    path: path,
                    reason:
                        "face \(number) asked for, but the photo has \(counted(faces.count, "face"))")
            }
            return number - 1
        }
    }
}

/// A probe photo's chosen face, found and described as indexing finds and describes faces.
public struct ProbeFace: Sendable {
    /// The photo.
    public let path: String
    /// The face: box in the photo's own pixels, descriptor, thumbnail (not stored: its ids are nil).
    public let face: FaceRecord
    /// Its number, counting from 1 left to right, and how many faces the photo has.
    public let number: Int
    public let count: Int
}

/// The stored faces and images nearest a probe photo's face.
public struct PhotoMatches: Sendable {
    public let probe: ProbeFace
    /// Nearest first.
    public let faces: [FaceHit]
    /// Nearest first: by each image's nearest face, or for rnbnn and nbnn by the image's own distance.
    public let images: [ImageHit]
}

/// Who a probe photo's face is, by the labelled faces.
public struct PhotoIdentification: Sendable {
    public let probe: ProbeFace
    /// The nearest labelled face's label, or nil (unknown) beyond the threshold or with no labels.
    public let name: String?
    /// The nearest labelled face, whatever its distance; nil when no face is labelled.
    public let nearest: FaceHit?
}

extension Catalog {
    /// The chosen face of a photo, found, aligned and described by `analysis`, exactly as indexing with it
    /// would store it; the photo is decoded on `context`.
    public nonisolated func probe(
        photo path: String, face choice: FaceChoice = .largest, with analysis: FaceAnalysis,
        context: RenderContext
    ) throws(CatalogError) -> ProbeFace {
        guard !files.contains(path) else {
            throw .probe(path: path, reason: "a file of the database itself, not a photo")
        }
        let faces: [FaceRecord]
        do {
            let photo = try Photo(path: path, bytes: try ImageDecoder.contents(of: path), context: context)
            faces = try analysis.analyze(photo).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .probe(path: path, reason: "\(error)")
        }
        let index = try choice.index(among: faces, of: path)
        return ProbeFace(path: path, face: faces[index], number: index + 1, count: faces.count)
    }

    /// The `top` stored faces and images nearest a face of a photo, found with `faces`: the whole path from
    /// the photo to the matches (decode, detect, choose the face, describe, search, collect), on `context`
    /// (by default the analysis's, else the device that searches fastest here). Throws `CancellationError`
    /// when the task is cancelled.
    public nonisolated func search(
        photo path: String, face: FaceChoice = .largest, faces: FaceAnalysis, matcher: Matcher = .embedding,
        weights: WeightMap = .reference, radius: Int? = nil, top: Int = 10,
        context: RenderContext? = nil
    ) async throws -> PhotoMatches {
        let context = try RenderContext.orDefault(context ?? faces.context, for: .search)
        let probe = try probe(photo: path, face: face, with: faces, context: context)
        let query = FaceQuery(
            probe: try probe.face.faceDescriptor(), embedding: try probe.face.faceEmbedding(), matcher: matcher,
            weights: weights, radius: radius, count: top)
        guard let result = try await query.run(on: self, context: context, updates: { _ in }) else {
            throw CancellationError()
        }
        return PhotoMatches(probe: probe, faces: result.faces, images: result.images)
    }

    /// The name of a face of a photo, found with `faces`, after its nearest labelled face (see
    /// ``Identification``), on `context` as for ``search(photo:face:faces:matcher:weights:radius:top:context:)``.
    /// Throws `CancellationError` when the task is cancelled.
    public nonisolated func identify(
        photo path: String, face: FaceChoice = .largest, faces: FaceAnalysis, matcher: Matcher = .embedding,
        weights: WeightMap = .reference, threshold: Float? = nil,
        context: RenderContext? = nil
    ) async throws -> PhotoIdentification {
        let context = try RenderContext.orDefault(context ?? faces.context, for: .search)
        let probe = try probe(photo: path, face: face, with: faces, context: context)
        let query = try Identification(
            probe: try probe.face.faceDescriptor(), embedding: try probe.face.faceEmbedding(),
            matcher: matcher, weights: weights, threshold: threshold)
        guard let result = try await query.run(on: self, context: context, updates: { _ in }) else {
            throw CancellationError()
        }
        return PhotoIdentification(probe: probe, name: result.name, nearest: result.nearest)
    }
}
