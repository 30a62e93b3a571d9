import NIOCore
import NIOSSL
import PostgresNIO

extension PostgresLocation {
    /// How postgres-nio connects to this server: the URL's user, password and database, TLS as its `sslmode`
    /// asks, ten seconds to connect. The catalog's store and the benchmarks that reach the server directly use it.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: try tls())
        configuration.options.connectTimeout = .seconds(10)
        // verify-full checks the certificate's name against the host: a DNS name through SNI, an IP address
        // (which SNI may not carry) against the address the connection reached.
        let isAddress = (try? SocketAddress(ipAddress: host, port: port)) != nil
        configuration.options.tlsServerName = encryption == .verifyFull && !isAddress ? host : nil
        return configuration
    }

    /// How the connection is encrypted, as libpq's `sslmode` asks, trusting `sslrootcert`'s authorities where
    /// the URL names a file of them.
    private func tls() throws -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = trustedCertificates {
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
            } catch {
                throw CatalogError.storage(
                    path: description,
                    reason: "sslrootcert \(file) holds no certificate that can be read (\(error))")
            }
        }
        switch encryption {
        case .disable: return .disable
        case .prefer:
            configuration.certificateVerification = .none
            return .prefer(try NIOSSLContext(configuration: configuration))
        case .require:
            configuration.certificateVerification = .none
            return .require(try NIOSSLContext(configuration: configuration))
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
            return .require(try NIOSSLContext(configuration: configuration))
        case .verifyFull: return .require(try NIOSSLContext(configuration: configuration))
        }
    }
}
