import Catalog
import Foundation
import Hummingbird

/// People: the grid of one face per person, a person's page with the changes made to them by hand (name,
/// hide, merge, move a face out or in) and the people and faces most likely the same person, and the API
/// under `/api/people` and `/api/faces` that both pages use.
struct PeopleController<Context: RequestContext>: Sendable {
    let service: CatalogService
    static var pageSize: Int { 60 }

    func addRoutes(to router: Router<Context>) {
        router.get("/people", use: peoplePage)
        router.get("/people/:id", use: personPage)
        router.get("/api/people", use: list)
        router.get("/api/people/:id", use: show)
        router.get("/api/people/:id/suggestions", use: suggestions)
        router.post("/api/people/:id", use: update)
        router.post("/api/people/:id/merge", use: merge)
        router.post("/api/faces/:id", use: moveFace)
    }

    // MARK: API

    /// The people, most faces first; hidden ones with `?hidden=true`.
    @Sendable func list(_ request: Request, context: Context) throws -> Listing<Person> {
        let paging = try Paging(request, size: Self.pageSize)
        let people = try people(request)
        return try paging.listing(Array(people.dropFirst(paging.offset).prefix(paging.size)), total: people.count)
    }

    /// A person's faces, each with its photo.
    struct PersonFace: Codable, Sendable {
        let id: Int64
        let image: Int64
        let path: String
        let x, y, width, height: Int
        let assignment: FaceAssignment?
    }

    struct PersonDetail: ResponseEncodable, Sendable {
        let person: Person
        let faces: Listing<PersonFace>
    }

    @Sendable func show(_ request: Request, context: Context) throws -> PersonDetail {
        let paging = try Paging(request, size: Self.pageSize)
        let (person, faces) = try personAndFaces(try request.id(in: context))
        return PersonDetail(
            person: person,
            faces: try paging.listing(Array(faces.dropFirst(paging.offset).prefix(paging.size)), total: faces.count))
    }

    /// The other people, and the faces in no person, most likely to be this person, nearest first.
    @Sendable func suggestions(_ request: Request, context: Context) throws -> PersonSuggestions {
        try service.suggestions(for: try request.id(in: context))
    }

    /// A change to a person: `{"name": "…"}` (null clears it), `{"hidden": true}`, or both.
    struct Change: Decodable {
        let name: String??
        let hidden: Bool?

        private enum Keys: String, CodingKey { case name, hidden }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            name = container.contains(.name) ? .some(try container.decode(String?.self, forKey: .name)) : nil
            hidden = try container.decodeIfPresent(Bool.self, forKey: .hidden)
        }
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> Person {
        let id = try request.id(in: context)
        let change = try await request.decode(as: Change.self, context: context)
        try service.requireWritable()
        if let name = change.name { try await service.catalog.name(person: id, as: name) }
        if let hidden = change.hidden { try await service.catalog.hide(person: id, hidden) }
        return try service.catalog.person(String(id))
    }

    struct Merge: Decodable { let into: Int64 }

    /// Moves every face of the person into another (`{"into": id}`); returns that one.
    @Sendable func merge(_ request: Request, context: Context) async throws -> Person {
        let id = try request.id(in: context)
        let merge = try await request.decode(as: Merge.self, context: context)
        try service.requireWritable()
        try await service.catalog.merge(person: id, into: merge.into)
        return try service.catalog.person(String(merge.into))
    }

    /// Where a face goes: `{"person": id}`, or `{"person": null}` for no one; the key is required, so that
    /// a body that says nothing (`{}`) changes nothing.
    struct Move: Decodable {
        let person: Int64?

        private enum Keys: String, CodingKey { case person }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            guard container.contains(.person) else {
                throw DecodingError.keyNotFound(
                    Keys.person, .init(codingPath: [], debugDescription: "the person to move the face to"))
            }
            person = try container.decode(Int64?.self, forKey: .person)
        }
    }

    /// Puts a face into a person by hand (`{"person": id}`), or out of every person (`{"person": null}`);
    /// returns the face.
    @Sendable func moveFace(_ request: Request, context: Context) async throws -> PhotoFace {
        let id = try request.id(in: context)
        let move = try await request.decode(as: Move.self, context: context)
        try service.requireWritable()
        try await service.catalog.assign(faces: [id], to: move.person)
        return try service.catalog.face(id).face
    }

    // MARK: Pages

    private struct PersonCard: Encodable {
        let id: Int64
        let title: String
        let isNamed: Bool
        let isHidden: Bool
        /// "3 faces", "1 photo": counts as the page says them.
        let faces: String
        let photos: String
        let thumbnail: String?

        init(_ person: Person) {
            id = person.id
            title = person.name ?? "Unnamed \(person.id)"
            isNamed = person.name != nil
            isHidden = person.hidden
            faces = counted(person.faces, "face")
            photos = counted(person.photos, "photo")
            thumbnail = person.representative.map { "/faces/\($0)/thumbnail" }
        }
    }

    private struct PeopleContent: Encodable {
        let people: [PersonCard]
        /// "12 people".
        let total: String
        let showsHidden: Bool
        let pager: Paging.Links
    }

    @Sendable func peoplePage(_ request: Request, context: Context) throws -> Page {
        let paging = try Paging(request, size: Self.pageSize)
        let people = try people(request)
        let showsHidden = try request.flag("hidden")
        return Page(
            template: "people", title: "People",
            content: PeopleContent(
                people: people.dropFirst(paging.offset).prefix(paging.size).map(PersonCard.init),
                total: counted(people.count, "person", "people"),
                showsHidden: showsHidden,
                pager: try paging.links(
                    total: people.count, path: "/people", query: showsHidden ? [("hidden", "true")] : [])))
    }

    private struct FaceCard: Encodable {
        let id: Int64
        let image: Int64
        let name: String
        let byHand: Bool
    }

    private struct PersonContent: Encodable {
        let person: PersonCard
        let name: String
        let faces: [FaceCard]
        let pager: Paging.Links
        let isWritable: Bool
        /// The other named people, to merge into.
        let others: [PersonCard]
        /// The people and faces most likely the same person, to merge or assign with one click.
        let suggestedPeople: [PersonCard]
        let suggestedFaces: [FaceCard]
        let hasSuggestions: Bool
    }

    @Sendable func personPage(_ request: Request, context: Context) throws -> Page {
        let paging = try Paging(request, size: Self.pageSize)
        let id = try request.id(in: context)
        let (person, faces) = try personAndFaces(id)
        let others = try service.people().filter { $0.id != id && $0.name != nil }.sorted {
            ($0.name ?? "") < ($1.name ?? "")
        }
        let suggested = try service.suggestions(for: id)
        return Page(
            template: "person", title: PersonCard(person).title,
            content: PersonContent(
                person: PersonCard(person), name: person.name ?? "",
                faces: faces.dropFirst(paging.offset).prefix(paging.size).map {
                    FaceCard(
                        id: $0.id, image: $0.image, name: ($0.path as NSString).lastPathComponent,
                        byHand: $0.assignment == .manual)
                }, pager: try paging.links(total: faces.count, path: "/people/\(id)"), isWritable: service.isWritable,
                others: others.map(PersonCard.init), suggestedPeople: suggested.people.map { PersonCard($0.person) },
                suggestedFaces: suggested.faces.map {
                    FaceCard(id: $0.id, image: $0.image, name: ($0.path as NSString).lastPathComponent, byHand: false)
                }, hasSuggestions: !suggested.people.isEmpty || !suggested.faces.isEmpty))
    }

    // MARK: Reading

    /// The people a request lists: all but the hidden, or all with `?hidden=true`.
    private func people(_ request: Request) throws -> [Person] {
        let showsHidden = try request.flag("hidden")
        return try service.people().filter { showsHidden || !$0.hidden }
    }

    private func personAndFaces(_ id: Int64) throws -> (Person, [PersonFace]) {
        let person = try service.catalog.person(String(id))
        let faces = try service.catalog.faces(of: id).map { path, face in
            PersonFace(
                id: face.id ?? 0, image: face.imageID, path: path, x: face.x, y: face.y, width: face.width,
                height: face.height, assignment: face.assignment)
        }
        return (person, faces)
    }
}
