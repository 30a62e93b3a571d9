import ArgumentParser
import Catalog
import FaceRecognition
import Foundation
import ImageCodecs
import ImageKernels

/// `cbir people`: the people faces are grouped into, and the changes a person makes to them by hand.
struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "List the people faces are grouped into; cluster, name, merge, move and split them.",
        discussion: """
            `cbir index` groups new faces into people as it goes; `cbir people cluster --recluster` regroups the \
            faces of unnamed people. People are named by id or by name. Changes by hand (merge, move, split, \
            unassign, and `cbir label`) \
            are never undone by clustering.
            """,
        subcommands: [
            List.self, Cluster.self, Suggest.self, Name.self, Hide.self, Merge.self, Move.self, Split.self,
            Unassign.self,
        ],
        defaultSubcommand: List.self)

    /// `cbir people [list]`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List people, most faces first (hidden ones with --all).",
            discussion:
                """
                With --json: a list of {id, name, hidden, faces, photos, representative} (the representative is a \
                face id).
                """
        )

        @Flag(help: "Print JSON (see above).")
        var json = false

        @Option(help: "Write a PNG sheet: each person's largest face, with its id, name and face count.")
        var sheet: String?

        @Flag(help: "Hidden people too.")
        var all = false

        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let store = try database.open()
            let people = try store.people().filter { all || !$0.hidden }
            if let sheet {
                let faces = Dictionary(
                    try store.faces(people.compactMap(\.representative)).compactMap { face in face.id.map { ($0, face) }
                    }
                ) { a, _ in a }
                let cells = try people.compactMap { person -> MatchSheet.Cell? in
                    guard let face = person.representative.flatMap({ faces[$0] }) else { return nil }
                    return .init(
                        face: try MatchSheet.face(
                            thumbnail: face.thumbnail, name: "thumbnail of face \(person.representative ?? 0)"),
                        caption: [
                            "\(person.id) \(person.name ?? "")", "\(person.faces) face\(person.faces == 1 ? "" : "s")",
                        ])
                }
                try ImageEncoder.write(try MatchSheet.make(cells), to: sheet)
            }
            if json {
                try printJSON(people)
                return
            }
            for person in people {
                print(
                    String(
                        format: "%6lld  %5d face%@  %@", person.id, person.faces, person.faces == 1 ? " " : "s",
                        person.name ?? "(no name)"))
            }
            if people.isEmpty { print("no people yet: `cbir index` groups faces into people") }
        }
    }

    /// `cbir people cluster`.
    struct Cluster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Group the faces not yet grouped into people (all faces again with --recluster).",
            discussion: """
                Faces join a person when the root-mean-square distance between their faces and the person's is below \
                the threshold (average linkage on dlib's embeddings), or farther, up to 0.65 at the default threshold, \
                where their nearest faces are the person's (a profile, a face of years before). With --recluster, each \
                old unnamed person keeps its id for the new group holding most of its faces.
                """)

        @Flag(help: "Regroup every face, except those assigned by hand and those of named people.")
        var recluster = false

        @Option(help: "Distance under which groups of faces merge.")
        var threshold = FaceClustering.defaultThreshold

        @Option(help: "Groups with fewer faces stay unassigned.")
        var minimumSize = 2

        @OptionGroup var devices: DeviceOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard threshold > 0, threshold.isFinite else {
                throw ValidationError("--threshold must be a positive number")
            }
            guard minimumSize >= 1 else { throw ValidationError("--minimum-size counts from 1") }
        }

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let summary = try await store.clusterPeople(
                recluster: recluster,
                clustering: FaceClustering(threshold: threshold, minimumClusterSize: minimumSize),
                context: try devices.context())
            print(summary.description)
        }
    }

    /// `cbir people suggest`.
    struct Suggest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the other people, and the faces in no person, most likely to be this person.",
            discussion: """
                Nearest first, by the measure clustering merges by (the root-mean-square distance between the \
                faces, over 1 + the share of their nearest faces in the other), for those within \
                \(FaceClustering().suggestionReach) on average: what clustering left apart but may be the same \
                person. Merge with `cbir people merge`, assign with `cbir people move`. With --json: \
                {people: [{person, distance}], faces: [{id, image, path, distance}]}.
                """)

        @Argument(help: "The person: id or name.")
        var person: String

        @Option(help: "The most people, and the most faces, to list.")
        var limit = 8

        @Flag(help: "Print JSON (see above).")
        var json = false

        @OptionGroup var devices: DeviceOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard limit >= 1 else { throw ValidationError("--limit counts from 1") }
        }

        func run() throws {
            let store = try database.open()
            let found = try store.person(person)
            let suggestions = try store.suggestions(for: found.id, limit: limit, context: try devices.context())
            if json {
                try printJSON(suggestions)
                return
            }
            for suggested in suggestions.people {
                print(
                    String(
                        format: "person %6lld  %.3f  %5d face%@  %@", suggested.person.id, suggested.distance,
                        suggested.person.faces, suggested.person.faces == 1 ? " " : "s",
                        suggested.person.name ?? "(no name)"))
            }
            for face in suggestions.faces {
                print(String(format: "face %8lld  %.3f  %@", face.id, face.distance, face.path))
            }
            if suggestions.people.isEmpty && suggestions.faces.isEmpty {
                print("person \(found.id): nothing else lies near enough to suggest")
            }
        }
    }

    /// `cbir people name`.
    struct Name: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Name a person (or clear its name).")

        @Argument(help: "The person: id or name.")
        var person: String

        @Argument(help: "The name. Leave out with --clear.")
        var name: String?

        @Flag(help: "Remove the person's name.")
        var clear = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard clear != (name != nil) else { throw ValidationError("give a name, or --clear") }
        }

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let found = try store.person(person)
            let stored = try await store.name(person: found.id, as: name)
            print("person \(found.id): \(stored ?? "no name")")
        }
    }

    /// `cbir people hide`.
    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hide a person from the lists (`people --all` shows it), or show it again.")

        @Argument(help: "The person: id or name.")
        var person: String

        @Flag(help: "Show the person again.")
        var undo = false

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let found = try store.person(person)
            try await store.hide(person: found.id, !undo)
            print("person \(found.id): \(undo ? "shown" : "hidden")")
        }
    }

    /// `cbir people merge`.
    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the first person into the second (which keeps its name, or takes the first's).")

        @Argument(help: "The person merged away: id or name.")
        var person: String

        @Argument(help: "The person that stays: id or name.")
        var into: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let (from, to) = (try store.person(person), try store.person(into))
            try await store.merge(person: from.id, into: to.id)
            print("person \(from.id) merged into person \(to.id): \(counted(from.faces + to.faces, "face"))")
        }
    }

    /// `cbir people move`.
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move faces (by id) to a person.")

        @Argument(help: "Face ids, then the person (id or name).")
        var arguments: [String]

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard arguments.count >= 2 else { throw ValidationError("give one face id or more, then the person") }
            _ = try faceIDs(arguments.dropLast())
        }

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let faces = try faceIDs(arguments.dropLast()), person = try store.person(arguments[arguments.count - 1])
            try await store.assign(faces: faces, to: person.id)
            print("\(faces.count) face\(faces.count == 1 ? "" : "s") moved to person \(person.id)")
        }
    }

    /// `cbir people split`.
    struct Split: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take faces (by id) out into a new person of their own.")

        @OptionGroup var faces: FaceIDs
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let ids = try faces.ids()
            print("person \(try await store.split(faces: ids)): \(counted(ids.count, "face"))")
        }
    }

    /// `cbir people unassign`.
    struct Unassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take faces (by id) out of every person, for good.")

        @OptionGroup var faces: FaceIDs
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let store = try database.open(access: .readWrite)
            let ids = try faces.ids()
            try await store.assign(faces: ids, to: nil)
            print("\(counted(ids.count, "face")) in no person")
        }
    }
}

/// The face ids a people command takes.
struct FaceIDs: ParsableArguments {
    @Argument(help: "Face ids (as `query` and `photos --sheet` show them).")
    var faces: [String]

    func validate() throws { _ = try ids() }

    func ids() throws -> [Int64] { try faceIDs(faces[...]) }
}

/// Face ids from the command line: whole numbers, at least one.
private func faceIDs(_ arguments: ArraySlice<String>) throws -> [Int64] {
    guard !arguments.isEmpty else { throw ValidationError("give one face id or more") }
    return try arguments.map { argument in
        guard let id = Int64(argument) else {
            throw ValidationError("\(argument) is not a face id (a whole number, as `query` prints)")
        }
        return id
    }
}
