import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// `GET /metrics` over HTTP/1.1 for Prometheus to scrape (`run --metrics-listen`, `serve
/// --metrics-listen`): each scrape renders the current snapshot. One event loop thread of its
/// own, so a scrape never waits behind the generator's loops; anything but `GET /metrics` is
/// 404 (`/` says where the metrics are).
///
/// It shares the process's descriptors with the room `serve` runs and the generator's
/// connections, so it holds few and never for long (issue 51: 1,067 idle connections to it
/// left `serve` unable to accept an enqueue):
/// - a request NIO's decoder cannot read is answered 400 and the connection closed;
/// - a connection that completes no request for `Limits.idleTimeout` is closed;
/// - at most `Limits.maxConnections` are open: a new one beyond them closes the oldest, so a
///   scrape still gets through while idle connections are held.
package final class MetricsServer: Sendable {
    package struct Limits: Sendable {
        /// The room listener's bound on a silent connection, so `serve`'s two listeners agree.
        package var idleTimeout: Duration = WaitingRoomServer.defaultIdleTimeout
        /// Prometheus needs one connection per scraper; a few dashboards' worth is plenty.
        package var maxConnections = 64

        package init(idleTimeout: Duration = WaitingRoomServer.defaultIdleTimeout, maxConnections: Int = 64) {
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
        }
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let connections: MetricsConnections
    /// The port it listens on (the one asked for, or the one the system gave for port 0).
    package let port: Int

    /// Listens at `host:port`; throws when it cannot (the caller says so: exit 3).
    package init(
        host: String, port: Int, limits: Limits = Limits(), render: @escaping @Sendable () -> String
    ) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = MetricsConnections(cap: max(1, limits.maxConnections))
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    do {
                        // NIO's own 400 leaves the connection open: the handler answers and closes.
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
                        try channel.pipeline.syncOperations.addHandler(
                            MetricsHTTPHandler(render: render, idleTimeout: limits.idleTimeout))
                        connections.admit(channel)
                        return channel.eventLoop.makeSucceededVoidFuture()
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                }
                .bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.connections = connections
        self.port = channel.localAddress?.port ?? port
    }

    /// Connections open now (tests check the cap).
    package var openConnections: Int { connections.count }

    /// Closes the listener and every connection.
    package func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// The open connections in the order they were accepted; past the cap, the oldest is closed.
private final class MetricsConnections: Sendable {
    private let cap: Int
    private let open = Mutex<[(id: ObjectIdentifier, channel: any Channel)]>([])

    init(cap: Int) {
        self.cap = cap
    }

    var count: Int { open.withLock { $0.count } }

    func admit(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let evicted = open.withLock { open -> (any Channel)? in
            open.append((id, channel))
            return open.count > cap ? open.removeFirst().channel : nil
        }
        evicted?.close(promise: nil)
        channel.closeFuture.whenComplete { [self] _ in
            open.withLock { open in open.removeAll { $0.id == id } }
        }
    }
}

private final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let render: @Sendable () -> String
    private let idleTimeout: Duration
    /// Closes the connection unless a request completes first.
    private var idleClose: Scheduled<Void>?
    private var closing = false

    init(render: @escaping @Sendable () -> String, idleTimeout: Duration) {
        self.render = render
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        armIdleClose(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleClose?.cancel()
        idleClose = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): answer(head, context: context)
        case .body: break
        case .end: armIdleClose(context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the decoder cannot read: it reads nothing more on this connection, so say
        // 400 and close rather than leave the client (and the descriptor) waiting.
        guard error is HTTPParserError, !closing, context.channel.isActive else {
            context.close(promise: nil)
            return
        }
        respond(
            status: .badRequest, type: "text/plain; charset=utf-8", body: "malformed HTTP request\n",
            version: .http1_1, keepAlive: false, withBody: true, context: context)
    }

    /// From now, a request has `idleTimeout` to complete before the connection is closed.
    private func armIdleClose(context: ChannelHandlerContext) {
        idleClose?.cancel()
        let channel = context.channel
        idleClose = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(idleTimeout.wholeNanoseconds)) {
            channel.close(promise: nil)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let (status, type, body): (HTTPResponseStatus, String, String)
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            (status, type, body) = (.ok, MetricsExposition.prometheusContentType, render())
        default:
            (status, type, body) = (.notFound, "text/plain; charset=utf-8", "queuesim serves its metrics at /metrics\n")
        }
        respond(
            status: status, type: type, body: body, version: head.version, keepAlive: head.isKeepAlive,
            withBody: head.method != .HEAD, context: context)
    }

    private func respond(
        status: HTTPResponseStatus, type: String, body: String, version: HTTPVersion, keepAlive: Bool,
        withBody: Bool, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if withBody {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            closing = true
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
