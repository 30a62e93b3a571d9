import ArgumentParser
import CatalogServer
import FaceDetection
import Foundation
import Hummingbird

/// `cbir serve`: the web page and JSON API over a database.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a web page and a JSON API over the database: people, photos, search by upload, duplicates.",
        discussion: """
            Pages for people (name, merge, hide, move faces), photos with their faces boxed, similar photos and \
            copies, search by uploading a photo, groups of duplicates and the database's status; the JSON API they \
            use under /api, described at /api/openapi.json. It listens on loopback unless given --host, which needs \
            --token: every request must then carry it (Authorization: Bearer TOKEN, or the cookie the sign-in page \
            sets). $CBIR_TOKEN gives the token without showing it to other users of the machine. Only files the \
            database records are served, by id. A database that cannot be written is served read-only.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The address to listen on (loopback by default; any other needs --token).")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed once the server listens).")
    var port = 8080

    @Option(help: "The token every request must carry (at least 16 characters; or $CBIR_TOKEN).")
    var token: String?

    @Option(help: "The largest photo a search may upload, in megabytes.")
    var uploadLimit = 20

    @Flag(help: "Serve the database read-only even where it could be written.")
    var readOnly = false

    @Option(
        help: "Seconds a connection may stay silent (idle, or stalled halfway through a request) before it is closed.")
    var idleTimeout = 30

    @Option(
        name: .customLong("read-db"),
        help: ArgumentHelp(
            """
            A streaming replica of the PostgreSQL catalog's server to read from (postgres://…): reads go there while \
            it is fresh, to --db otherwise (said once on stderr); writes always go to --db.
            """, valueName: "url"))
    var readReplica: String?

    @OptionGroup var detector: DetectorOption
    @OptionGroup var deviceOptions: DeviceOptions

    func validate() throws {
        guard (1...1024).contains(uploadLimit) else { throw ValidationError("--upload-limit must be 1 to 1024 MB") }
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be 1 to 3600 s") }
    }

    func run() async throws {
        let configuration = ServerConfiguration(
            database: try database.existing(), host: host, port: port,
            token: token ?? ProcessInfo.processInfo.environment["CBIR_TOKEN"], uploadLimit: uploadLimit << 20,
            context: try deviceOptions.context(), detector: detector.detector, readOnly: readOnly,
            idleTimeout: .seconds(idleTimeout), readReplica: readReplica)
        do {
            try configuration.validate()
        } catch {
            throw CommandFailure(error.description)
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        let app = try buildApplication(configuration) { [database] port in
            FileHandle.standardError.write(Data("serving \(database.shown) on http://\(shown):\(port)\n".utf8))
        }
        try await app.runService()
    }
}
