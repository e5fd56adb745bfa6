import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// Hand-made loopback clients for the room's TLS listener: what ALPN gave, raw HTTP/1.1 bytes,
/// the server's first SETTINGS, a connection that says nothing. Every wait is bounded.
enum TLSProbe {
    struct Timeout: Error {}

    /// Sends `request` over TLS offering `alpn` (empty: no ALPN) and reads until the server
    /// closes: the protocol negotiated and every byte of the answer.
    static func exchange(port: Int, alpn: [String], request: String) async throws -> (String?, String) {
        let context = try clientContext(alpn: alpn)
        let collected = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: (String?, String).self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: "localhost")
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(Collector(done: collected))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: request))
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(5)) { collected.fail(Timeout()) }
        defer { timeout.cancel() }
        return try await collected.futureResult.get()
    }

    /// The parameters of the server's first SETTINGS frame over h2, by identifier.
    static func serverSettings(port: Int) async throws -> [Int: Int] {
        let context = try clientContext(alpn: ["h2"])
        let received = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: HTTP2Settings.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: "localhost")
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .client))
                    try channel.pipeline.syncOperations.addHandler(SettingsCatcher(received: received))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(5)) { received.fail(Timeout()) }
        defer {
            timeout.cancel()
            channel.close(promise: nil)
        }
        let known: [(HTTP2SettingsParameter, Int)] = [
            (.headerTableSize, 1), (.enablePush, 2), (.maxConcurrentStreams, 3), (.initialWindowSize, 4),
            (.maxFrameSize, 5), (.maxHeaderListSize, 6),
        ]
        var settings: [Int: Int] = [:]
        for setting in try await received.futureResult.get() {
            if let identifier = known.first(where: { $0.0 == setting.parameter })?.1 {
                settings[identifier] = setting.value
            }
        }
        return settings
    }

    /// Connects and sends nothing (not even a TLS ClientHello): whether the server closed the
    /// connection within `limit`.
    static func silentConnection(port: Int, limit: Duration) async throws -> Bool {
        let closed = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Bool.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CloseWatcher(closed: closed))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let timeout = channel.eventLoop.scheduleTask(in: .nanoseconds(limit.wholeNanoseconds)) {
            closed.succeed(false)
        }
        defer {
            timeout.cancel()
            channel.close(promise: nil)
        }
        return try await closed.futureResult.get()
    }

    private static func clientContext(alpn: [String]) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(
            try NIOSSLCertificate.fromPEMFile(WaitingRoomServerTLSTests.certificate))
        configuration.applicationProtocols = alpn
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Collects a connection's bytes until it closes, with the ALPN protocol of its handshake.
private final class Collector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let done: EventLoopPromise<(String?, String)>
    private var bytes = ""
    private var alpn: String?

    init(done: EventLoopPromise<(String?, String)>) {
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytes += String(buffer: unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event { alpn = negotiated }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.succeed((alpn, bytes))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An unclean close after the answer changes nothing the test reads.
        context.close(promise: nil)
    }
}

/// Hands over the first SETTINGS frame the server sends.
private final class SettingsCatcher: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let received: EventLoopPromise<HTTP2Settings>

    init(received: EventLoopPromise<HTTP2Settings>) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .settings(.settings(let settings)) = unwrapInboundIn(data).payload { received.succeed(settings) }
    }
}

/// Says when the server closes the connection.
private final class CloseWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let closed: EventLoopPromise<Bool>

    init(closed: EventLoopPromise<Bool>) {
        self.closed = closed
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed.succeed(true)
    }
}
