import NIOCore
import NIOHTTP1
import NIOPosix

/// `GET /metrics` over HTTP/1.1 for Prometheus to scrape (`run --metrics-listen`, `serve
/// --metrics-listen`): each scrape renders the current snapshot. One event loop thread of its
/// own, so a scrape never waits behind the generator's loops; anything but `GET /metrics` is
/// 404 (`/` says where the metrics are).
package final class MetricsServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The port it listens on (the one asked for, or the one the system gave for port 0).
    package let port: Int

    /// Listens at `host:port`; throws when it cannot (the caller says so: exit 3).
    package init(host: String, port: Int, render: @escaping @Sendable () -> String) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.pipeline.configureHTTPServerPipeline().flatMap {
                        channel.pipeline.addHandler(MetricsHTTPHandler(render: render))
                    }
                }
                .bind(host: host, port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.port = channel.localAddress?.port ?? port
    }

    /// Closes the listener and every connection.
    package func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

private final class MetricsHTTPHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let render: @Sendable () -> String

    init(render: @escaping @Sendable () -> String) {
        self.render = render
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let (status, type, body): (HTTPResponseStatus, String, String)
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            (status, type, body) = (.ok, MetricsExposition.prometheusContentType, render())
        default:
            (status, type, body) = (.notFound, "text/plain; charset=utf-8", "queuesim serves its metrics at /metrics\n")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        }
        let keepAlive = head.isKeepAlive
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
