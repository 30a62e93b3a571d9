import Foundation
import Hummingbird
import Logging
import NIOCore

/// Builds the web server over a catalog: the pages, the JSON API under `/api` and the files, guarded as
/// ``ServerConfiguration`` says. Tests call it and send requests in process; `cbir serve` runs what it returns.
/// `onRunning` is called once the server listens, with the port it listens on (the one the system chose
/// where the configuration asks for port 0).
public func buildApplication(
    _ configuration: ServerConfiguration, onRunning: @escaping @Sendable (Int) -> Void = { _ in }
) throws -> some ApplicationProtocol {
    try configuration.validate()
    var logger = Logger(label: "cbir serve")
    logger.logLevel = .notice
    return Application(
        router: try buildRouter(configuration),
        server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "cbir"),
        onServerRunning: { channel in onRunning(channel.localAddress?.port ?? configuration.port) }, logger: logger)
}

/// Every route, each controller adding its own, behind the access control and the error pages.
public func buildRouter(_ configuration: ServerConfiguration) throws -> Router<BasicRequestContext> {
    try configuration.validate()
    let service = try CatalogService(configuration: configuration)
    let router = Router(options: .autoGenerateHeadEndpoints)
    if let threads = service.blockingThreads { router.add(middleware: OnBlockingThreads(threads: threads)) }
    let sessions = Sessions()
    router.add(
        middleware: AccessControl(token: configuration.token, host: configuration.host.lowercased(), sessions: sessions)
    )
    router.add(middleware: ErrorPages())
    SignInController(token: configuration.token, sessions: sessions).addRoutes(to: router)
    SiteController().addRoutes(to: router)
    StatusController(service: service).addRoutes(to: router)
    PeopleController(service: service).addRoutes(to: router)
    PhotosController(service: service).addRoutes(to: router)
    SearchController(service: service).addRoutes(to: router)
    WordSearchController(service: service).addRoutes(to: router)
    DuplicatesController(service: service).addRoutes(to: router)
    CleanupController(service: service).addRoutes(to: router)
    return router
}
