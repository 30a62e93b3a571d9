import FaceRecognition
import ImageKernels

/// What a person's page offers to merge or to assign: the other people, and the faces in no person, that
/// most likely show the same person, nearest first (`FaceClustering.suggestions`).
public struct PersonSuggestions: Sendable, Codable, Equatable {
    /// Another person, and how near their faces lie (`FaceClustering.Suggestion.distance`).
    public struct SuggestedPerson: Sendable, Codable, Equatable {
        public let person: Person
        public let distance: Float
    }

    /// A face in no person: its photo, and how near it lies.
    public struct SuggestedFace: Sendable, Codable, Equatable {
        public let id: Int64
        public let image: Int64
        public let path: String
        public let distance: Float
    }

    public let people: [SuggestedPerson]
    public let faces: [SuggestedFace]
}

extension Catalog {
    /// The people and the faces in no person (those taken out of every person by hand left aside) most
    /// likely to show `person`, up to `limit` of each, by the measure `clustering` merges by; searched on
    /// `context` (by default the device that searches fastest here).
    public nonisolated func suggestions(
        for person: Int64, limit: Int = 8, clustering: FaceClustering = FaceClustering(),
        context: RenderContext? = nil
    ) throws(CatalogError) -> PersonSuggestions {
        _ = try self.person(String(person))
        let faces = try clusteredFaces()
        let found: [FaceClustering.Suggestion]
        do {
            found = try clustering.suggestions(
                for: Int(person), of: faces.embeddings, length: FaceEmbedder.length,
                groups: faces.people.map { $0.map(Int.init) },
                context: try RenderContext.orDefault(context, for: .search))
        } catch {
            throw .processing("suggesting people for person \(person): \(error)")
        }
        var people: [(Int64, Float)] = [], lone: [(Int64, Float)] = []
        for suggestion in found {
            switch suggestion.candidate {
            case .group(let other) where people.count < limit: people.append((Int64(other), suggestion.distance))
            case .face(let face) where lone.count < limit: lone.append((faces.ids[face], suggestion.distance))
            default: break
            }
        }
        return try reading { [people, lone] connection in
            let persons = Dictionary(
                try Self.people(connection, where: "persons.id IN (\(RowBatches.list(people.map(\.0))))").map {
                    ($0.id, $0)
                }, uniquingKeysWith: { first, _ in first })
            let photos = Dictionary(
                try connection.rows(
                    """
                    SELECT faces.id, image_id, path FROM faces JOIN images ON images.id = image_id \
                    WHERE faces.id IN (\(RowBatches.list(lone.map(\.0))))
                    """, []
                ).map { row throws(CatalogError) in
                    (try row.get(0) as Int64, (image: try row.get(1) as Int64, path: try row.get(2) as String))
                }, uniquingKeysWith: { first, _ in first })
            return PersonSuggestions(
                people: people.compactMap { id, distance in
                    persons[id].map { PersonSuggestions.SuggestedPerson(person: $0, distance: distance) }
                },
                faces: lone.compactMap { id, distance in
                    photos[id].map {
                        PersonSuggestions.SuggestedFace(
                            id: id, image: $0.image, path: localPath($0.path), distance: distance)
                    }
                })
        }
    }
}
