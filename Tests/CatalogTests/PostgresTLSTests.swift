import Catalog
import Foundation
import TestSupport
import Testing

/// `sslmode` and `sslrootcert` against real handshakes: the test server has no TLS, so a ``TLSProxy`` with a
/// certificate made for the test stands in front of it. `require` and `prefer` encrypt where TLS
/// is offered and `require` refuses a server without it; `verify-ca` and `verify-full` accept the certificate
/// only where `sslrootcert` names its authority, and `verify-full` only for the host it was made for.
@Suite struct PostgresTLSTests {
    @Test(arguments: ["require", "prefer"])
    func theCatalogTravelsEncryptedWhereTheServerOffersTLS(mode: String) throws {
        let server = try TestServer(name: "tls_\(mode)")
        defer { server.remove() }
        let proxy = try server.proxy()
        defer { proxy.close() }

        let catalog = try Catalog(path: server.url(port: proxy.port, ["sslmode": mode]))
        #expect(try catalog.check().isSound)
        #expect(try catalog.photos(offset: 0, limit: 10).items.isEmpty)
        #expect(proxy.handshakesCompleted >= 1)
    }

    @Test func requireRefusesAServerWithoutTLS() throws {
        let server = try TestServer(name: "tls_refused")
        defer { server.remove() }
        #expect {
            try Catalog(path: server.url(port: server.port, ["sslmode": "require"]))
        } throws: { error in
            "\(error)".contains("sslmode=require, but the server does not offer TLS")
        }
    }

    @Test(arguments: ["verify-ca", "verify-full"])
    func theServersCertificateIsCheckedAgainstTheTrustedAuthorities(mode: String) throws {
        let server = try TestServer(name: "tls_\(mode.replacingOccurrences(of: "-", with: "_"))")
        defer { server.remove() }
        let proxy = try server.proxy()
        defer { proxy.close() }

        #expect {
            try Catalog(path: server.url(port: proxy.port, ["sslmode": mode]))
        } throws: { error in
            "\(error)".contains("TLS with the server failed")
                && "\(error)".contains("sslmode=\(mode) accepts only a certificate")
                && "\(error)".contains("that an authority this machine trusts signed")
        }
        #expect(proxy.handshakesCompleted == 0)

        let trusted = server.url(port: proxy.port, ["sslmode": mode, "sslrootcert": server.certificate])
        #expect(try Catalog(path: trusted).check().isSound)
        #expect(proxy.handshakesCompleted >= 1)
    }

    @Test func verifyFullRefusesACertificateForAnotherName() throws {
        let server = try TestServer(name: "tls_other_name")
        defer { server.remove() }
        let proxy = try server.proxy(for: "DNS:db.example")
        defer { proxy.close() }
        let url = server.url(port: proxy.port, ["sslmode": "verify-full", "sslrootcert": server.certificate])
        #expect {
            try Catalog(path: url)
        } throws: { error in
            "\(error)".contains("TLS with the server failed")
                && "\(error)".contains("accepts only a certificate for 127.0.0.1 that the authorities in")
        }
        let unnamed = server.url(port: proxy.port, ["sslmode": "verify-ca", "sslrootcert": server.certificate])
        #expect(try Catalog(path: unnamed).check().isSound, "verify-ca checks no name")
    }

    @Test func anAuthoritiesFileThatCannotBeReadIsSaid() throws {
        let server = try TestServer(name: "tls_no_roots")
        defer { server.remove() }
        let url = server.url(
            port: server.port, ["sslmode": "verify-full", "sslrootcert": server.folder + "/missing.pem"])
        #expect {
            try Catalog(path: url)
        } throws: { error in
            "\(error)".contains("sslrootcert \(server.folder)/missing.pem holds no certificate that can be read")
        }
    }
}

/// A database of its own on the test server, and a folder for the certificate that `openssl` makes for its
/// proxy.
private struct TestServer {
    let database: URLComponents
    let port: Int
    let folder: String
    var certificate: String { folder + "/certificate.pem" }

    init(name: String) throws {
        guard TestPostgres.isRunning else { try Test.cancel(Comment(rawValue: TestPostgres.absence)) }
        for (name, value) in TestPostgres.environment { setenv(name, value, 0) }
        let url = try TestPostgres.database("cbir_test_\(name)_\(UUID().uuidString.prefix(8).lowercased())")
        guard let components = URLComponents(string: url), let port = components.port else {
            throw Failure(description: "the test server's URL cannot be read: \(url)")
        }
        database = components
        self.port = port
        folder = NSTemporaryDirectory() + "tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// The database's URL at `host` and `port` with the options `query`.
    func url(host: String? = nil, port: Int, _ query: [String: String]) -> String {
        var url = database
        url.host = host ?? url.host
        url.port = port
        url.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return url.string ?? ""
    }

    /// A TLS front for the server with a new self-signed certificate (``certificate``) for `name`, a subject
    /// alternative name.
    func proxy(for name: String = "IP:127.0.0.1") throws -> TLSProxy {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            try Test.cancel("openssl is not installed here, so no certificate can be made for the TLS tests")
        }
        let openssl = try CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/openssl"))
            .run([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=FaceSearch test", "-addext", "subjectAltName=" + name,
                "-keyout", folder + "/key.pem", "-out", certificate,
            ])
        guard openssl.status == 0 else {
            throw Failure(description: "openssl made no certificate: " + openssl.standardError)
        }
        return try TLSProxy(certificate: certificate, key: folder + "/key.pem", upstreamPort: port)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
