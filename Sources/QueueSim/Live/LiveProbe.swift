import HTTPTypes
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import QueueClientCore

/// One request through the live engine's own client (the same connect, TLS and HTTP path the
/// visitors will use), answered or failed within `timeout`: `WallClockRunner` asks it whether
/// a base URL is reachable before any visitor starts.
final class LiveProbe: LiveExchangeOwner {
    private let pool: LiveConnectionPool
    private var promise: EventLoopPromise<Result<IncomingResponse, TransportError>>?

    private init(connections: any ConnectionFactory, endpoint: LiveEndpoint, timeout: Duration) {
        pool = LiveConnectionPool(connections: connections, endpoint: endpoint, limit: 1, connectTimeout: timeout)
        pool.owner = self
    }

    static func send(
        _ request: OutgoingRequest, to endpoint: LiveEndpoint, on transportLoop: LiveTransport.Loop, timeout: Duration
    ) async -> Result<IncomingResponse, TransportError> {
        let loop = transportLoop.eventLoop
        let future = loop.flatSubmit {
            let probe = LiveProbe(
                connections: transportLoop.makeConnectionFactory(), endpoint: endpoint, timeout: timeout)
            let promise = loop.makePromise(of: Result<IncomingResponse, TransportError>.self)
            probe.promise = promise
            probe.pool.send(LiveExchange(slot: 0, serial: 1, request: request))
            loop.assumeIsolated().scheduleTask(in: .nanoseconds(timeout.wholeNanoseconds)) {
                probe.pool.abort(slot: 0, serial: 1)
                probe.exchangeCompleted(
                    slot: 0, serial: 1, result: .failure(.timedOut), handshake: nil, at: probe.pool.clock.now)
            }
            return promise.futureResult
        }
        do {
            return try await future.get()
        } catch {
            return .failure(LiveTransportErrors.map(error))
        }
    }

    func awaits(slot: Int, serial: UInt32) -> Bool { promise != nil }

    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        at now: RunInstant
    ) {
        guard let promise else { return }
        self.promise = nil
        pool.closeAll()
        pool.owner = nil
        promise.succeed(result)
    }
}

extension LiveProbe {
    /// Whether `endpoint` takes a connection within `timeout`: a TCP connect and, on https, a
    /// TLS handshake whose certificate verifies (for the name the requests use), then closed.
    /// No request is sent: a protected API or a redirect's host sees no stray `GET /`, and a
    /// phone sends it none.
    static func connect(to endpoint: LiveEndpoint, timeout: Duration) async -> Result<Void, TransportError> {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: Void.self)
        let (tls, serverHostname) = (endpoint.tls, endpoint.serverHostname)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(timeout.wholeNanoseconds))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let tls else { return }
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    try operations.addHandler(HandshakeWaiter(promise: promise))
                }
            }
        let timer = loop.scheduleTask(in: .nanoseconds(timeout.wholeNanoseconds)) {
            promise.fail(ChannelError.connectTimeout(.nanoseconds(timeout.wholeNanoseconds)))
        }
        bootstrap.connect(to: endpoint.address).whenComplete { result in
            switch result {
            case .success(let channel):
                if tls == nil { promise.succeed(()) }
                promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            case .failure(let error):
                promise.fail(error)
            }
        }
        do {
            try await promise.futureResult.get()
            timer.cancel()
            return .success(())
        } catch {
            timer.cancel()
            return .failure(LiveTransportErrors.map(error))
        }
    }
}

/// Completes `promise` when the TLS handshake does (or fails with the first error, or the
/// connection's end before it).
private final class HandshakeWaiter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
