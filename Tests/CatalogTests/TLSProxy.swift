import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A TLS front on loopback for the test PostgreSQL server, whose build has no TLS: it answers a client's
/// SSLRequest as a server with TLS does, completes the handshake with the certificate it is given and relays
/// the decrypted bytes to the server, so that the catalog's `sslmode` is tried against real handshakes. It
/// counts the handshakes it completed.
final class TLSProxy: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    private let listener: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let handshakes = NIOLockedValueBox(0)

    /// Listens on a free port, relaying to the server on `upstreamPort`, with the certificate and key in
    /// the PEM files `certificate` and `key`.
    init(certificate: String, key: String, upstreamPort: Int) throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        configuration.minimumTLSVersion = .tlsv12
        let tls = try NIOSSLContext(configuration: configuration)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let handshakes = handshakes
        do {
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { client in
                    ClientBootstrap(group: client.eventLoop).connect(host: "127.0.0.1", port: upstreamPort)
                        .flatMapThrowing { server in
                            try server.pipeline.syncOperations.addHandler(Relay(to: client, handshakes: nil))
                            try client.pipeline.syncOperations.addHandlers(
                                SSLRequestAnswer(tls: tls), Relay(to: server, handshakes: handshakes))
                        }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        port = listener.localAddress?.port ?? 0
    }

    /// How many TLS handshakes with clients it has completed.
    var handshakesCompleted: Int { handshakes.withLockedValue { $0 } }

    /// Stops listening and closes every relayed connection.
    func close() {
        try? listener.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Answers the 8-byte SSLRequest a PostgreSQL client sends first with `S` (TLS follows), then puts the TLS
/// handler in front and leaves; anything else closes the connection.
private final class SSLRequestAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private static let sslRequestCode: UInt32 = 80_877_103
    private let tls: NIOSSLContext
    private var received = ByteBuffer()

    init(tls: NIOSSLContext) { self.tls = tls }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        guard received.readableBytes >= 8 else { return }
        guard received.getInteger(at: received.readerIndex + 4, as: UInt32.self) == Self.sslRequestCode,
            received.readableBytes == 8
        else {
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "S")), promise: nil)
        do {
            try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
            context.close(promise: nil)
        }
    }
}

/// Writes what one side of the proxy reads to the other side, and closes the other side with this one.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let partner: any Channel
    private let handshakes: NIOLockedValueBox<Int>?

    init(to partner: any Channel, handshakes: NIOLockedValueBox<Int>?) {
        self.partner = partner
        self.handshakes = handshakes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { handshakes?.withLockedValue { $0 += 1 } }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
