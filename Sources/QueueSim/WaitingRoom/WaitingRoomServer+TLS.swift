import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS
import QueueClientCore

/// The room over TLS: ALPN picks h2 or HTTP/1.1 per connection, and both reach the same
/// `RoomHTTPHandler`. Over h2 each stream gets its own handler behind NIOHTTP2's HTTP/1 codec
/// (`HTTP2FramePayloadToHTTP1ServerCodec`): the room's answers, delays, faults, body limit and
/// idle rule are then one code path for both protocols, so an answer cannot differ by protocol.
/// The codec lowercases the answer's header names and drops connection-specific ones
/// (`Connection`), as h2 requires.
///
/// Bounds, as on the plain listener: a connection whose TLS handshake has not finished within
/// the idle timeout is closed; an HTTP/1.1 connection is the plain one behind TLS. An h2
/// connection advertises `SETTINGS_MAX_CONCURRENT_STREAMS` `h2MaxConcurrentStreams` (NIOHTTP2
/// refuses a stream past it), a stream silent mid-request for the idle timeout is reset, a
/// connection without a stream for the idle timeout gets GOAWAY and is closed, and a stop sends
/// GOAWAY, lets answers in flight go out for `shutdownGrace`, then closes.
extension WaitingRoomServer {
    /// Streams one h2 connection may have open at once (`SETTINGS_MAX_CONCURRENT_STREAMS`); the
    /// common value of CDNs' edges (NIOHTTP2's default too). A phone's stack opens a handful.
    package static let h2MaxConcurrentStreams = 100
    /// The largest request header list an h2 connection accepts (`SETTINGS_MAX_HEADER_LIST_SIZE`).
    package static let h2MaxHeaderListSize = 65536

    /// One accepted TLS connection's handlers, up to the ALPN decision.
    static func configureTLS(
        _ channel: any Channel, tls: RoomTLS, service: LockedWaitingRoomService, clock: any RunClock,
        logger: Logger, idleTimeout: Duration, announcement: RoomAnnouncement?
    ) -> EventLoopFuture<Void> {
        do {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(NIOSSLServerHandler(context: tls.context))
            try sync.addHandler(HandshakeDeadline(timeout: idleTimeout))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configureH2(
                        channel, service: service, clock: clock, logger: logger, idleTimeout: idleTimeout,
                        announcement: announcement)
                }
            },
            http1ChannelConfigurator: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configure(
                        channel.pipeline.syncOperations, service: service, clock: clock, logger: logger,
                        idleTimeout: idleTimeout, announcement: announcement, scheme: "https")
                }
            })
    }

    /// An h2 connection: the frame handler, its lifecycle (idle GOAWAY, graceful stop) and a
    /// room handler per stream.
    private static func configureH2(
        _ channel: any Channel, service: LockedWaitingRoomService, clock: any RunClock, logger: Logger,
        idleTimeout: Duration, announcement: RoomAnnouncement?
    ) throws {
        let idle = TimeAmount.nanoseconds(idleTimeout.wholeNanoseconds)
        let lifecycle = NIOHTTP2ServerConnectionManagementHandler(
            eventLoop: channel.eventLoop,
            configuration: .init(
                maxIdleTime: idle, maxAge: nil, maxGraceTime: .nanoseconds(shutdownGrace.wholeNanoseconds),
                keepalive: nil))
        let streams = H2StreamStopper()
        let boundStreams = NIOLoopBound(streams, eventLoop: channel.eventLoop)
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: h2MaxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: h2MaxHeaderListSize),
        ]
        let sync = channel.pipeline.syncOperations
        _ = try sync.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: connection, streamConfiguration: .init(),
            streamDelegate: lifecycle.http2StreamDelegate
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let streamPipeline = stream.pipeline.syncOperations
                try streamPipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try streamPipeline.addHandler(IdleStateHandler(readTimeout: idle))
                try streamPipeline.addHandler(
                    RoomHTTPHandler(
                        service: service, clock: clock, logger: logger, announcement: announcement, scheme: "https"))
                boundStreams.value.add(stream)
            }
        }
        try sync.addHandler(lifecycle)
        try sync.addHandler(streams)
    }
}

/// Closes a connection whose TLS handshake (and so its ALPN choice) is not over within the
/// idle timeout: a client that connects and says nothing holds no descriptor for ever.
private final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: Duration
    private var deadline: Scheduled<Void>?

    init(timeout: Duration) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted = event {
            deadline?.cancel()
            deadline = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(timeout.wholeNanoseconds)) {
            channel.close(promise: nil)
        }
    }
}

/// An h2 connection's open streams, so a stop reaches each stream's `RoomHTTPHandler` (a held
/// `.noAnswer` request is reset at once, as on HTTP/1.1) and the connection sends GOAWAY.
private final class H2StreamStopper: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private var open: [ObjectIdentifier: any Channel] = [:]

    func add(_ stream: any Channel) {
        let id = ObjectIdentifier(stream)
        open[id] = stream
        stream.closeFuture.assumeIsolated().whenComplete { [self] _ in open[id] = nil }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is RoomHTTPHandler.Stopping else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        for stream in open.values { stream.pipeline.syncOperations.fireUserInboundEventTriggered(event) }
        // From the head, so the lifecycle handler (before this one) sends GOAWAY and closes
        // the connection once its streams are done.
        context.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    }
}
