import Foundation
import Hummingbird
import Logging

/// Builds the web server over a catalog: the pages, the JSON API under `/api` and the files, guarded as
/// ``ServerConfiguration`` says. Tests call it and send requests in process; `cbir serve` runs what it returns.
public func buildApplication(_ configuration: ServerConfiguration) throws -> some ApplicationProtocol {
    try configuration.validate()
    var logger = Logger(label: "cbir serve")
    logger.logLevel = .notice
    return Application(
        router: try buildRouter(configuration),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "cbir"),
        logger: logger)
}

/// Every route, each controller adding its own, behind the access control and the error pages.
public func buildRouter(_ configuration: ServerConfiguration) throws -> Router<BasicRequestContext> {
    try configuration.validate()
    let service = try CatalogService(configuration: configuration)
    let router = Router()
    router.add(middleware: AccessControl(token: service.configuration.token))
    router.add(middleware: ErrorPages())
    SignInController(token: service.configuration.token).addRoutes(to: router)
    SiteController().addRoutes(to: router)
    StatusController(service: service).addRoutes(to: router)
    PeopleController(service: service).addRoutes(to: router)
    PhotosController(service: service).addRoutes(to: router)
    SearchController(service: service).addRoutes(to: router)
    DuplicatesController(service: service).addRoutes(to: router)
    return router
}
