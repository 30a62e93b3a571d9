import Catalog
import CatalogServer
import Foundation
import GRDB
import Hummingbird
import ImageKernels
import TestSupport

/// A database of real photos the server tests share, made once: the wild photos' train/ (nine photos of
/// five people), a byte-identical copy of one of them, and four views of one UKBench object, indexed with
/// faces and prints and clustered, with Obama's face named.
struct ServerFixture: Sendable {
    let folder: String
    let database: String

    static let shared = Task<ServerFixture, any Error> { try await make() }

    static func make() async throws -> ServerFixture {
        let folder = NSTemporaryDirectory() + "cbir-server-tests-" + UUID().uuidString
        let photos = folder + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: SharedData.root + "/wild-photos/train", toPath: photos + "/train")
        try FileManager.default.copyItem(
            atPath: SharedData.root + "/wild-photos/train/biden/biden.jpg", toPath: photos + "/biden copy.jpg")
        for number in 0..<4 {
            let name = String(format: "ukbench%05d.jpg", number)
            try FileManager.default.copyItem(
                atPath: SharedData.root + "/ukbench-dev/" + name, toPath: photos + "/" + name)
        }
        let database = folder + "/cbir.sqlite"
        let catalog = try Catalog(path: database)
        let context = try context()
        _ = try await catalog.index(
            folder: photos, analyses: [try FaceAnalysis(context: context), try PhotoPrintAnalysis(context: context)],
            context: context)
        _ = try await catalog.clusterPeople(context: context)
        let obama = try catalog.faces(inImageAtPath: photos + "/train/obama/obama.jpg")
        if let face = obama.first?.id { try await catalog.label(face: face, as: "Barack Obama") }
        return ServerFixture(folder: folder, database: database)
    }

    static func context() throws -> RenderContext {
        RenderContext(device: try TestDevices.device(TestDevices.hasOpenCL ? .opencl : .cpu))
    }

    /// The server's configuration over a copy of the database on `store`, so that a test's changes stay its own.
    func configuration(
        on store: TestStore = .sqlite, token: String? = nil, uploadLimit: Int = 20 << 20, readOnly: Bool = false
    ) throws -> ServerConfiguration {
        let copy = folder + "/copy-" + UUID().uuidString + ".sqlite"
        var reading = Configuration()
        reading.readonly = true
        reading.busyMode = .timeout(Catalog.busyTimeout)
        try DatabaseQueue(path: database, configuration: reading).inDatabase { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [copy])
        }
        let database = store == .sqlite ? copy : try store.catalog(in: folder, name: "server")
        if database != copy { _ = try CatalogCopy.copy(from: copy, to: database) }
        return ServerConfiguration(
            database: database, token: token, uploadLimit: uploadLimit, context: try Self.context(), readOnly: readOnly)
    }

    /// A copy of the database served in process, the client handed to `body`.
    func withServer<Result: Sendable>(
        _ configuration: ServerConfiguration? = nil,
        _ body: @escaping @Sendable (RouterClient, ServerConfiguration) async throws -> Result
    ) async throws -> Result {
        let configuration = try configuration ?? self.configuration()
        return try await body(RouterClient(responder: try buildRouter(configuration).buildResponder()), configuration)
    }
}

extension RouterClient.Response {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body decoded from JSON.
    func json<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: body))
    }
}

/// JSON bytes for a request body.
func jsonBody(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
