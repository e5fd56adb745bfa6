import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore

/// Connections on SwiftNIO channels, plain (`LiveHTTP1Handler`) or TLS (`LiveTLSConnection`:
/// h2 or HTTP/1.1, as ALPN agrees): the transport of every
/// run with the embedded room or an `https` endpoint, and of any run where queuesim's own
/// plain loop does not exist (every platform but Linux) or is not wanted
/// (`QUEUESIM_TRANSPORT=nio`). Its loop is one of SwiftNIO's own (NIOPosix's): a bootstrap
/// cannot run anywhere else.
final class NIOConnectionFactory: ConnectionFactory {
    let eventLoop: any EventLoop
    /// Bootstraps made once and reused, by endpoint and whether a visitor owns the
    /// connections (`endpoint * 2 + 1` for a visitor's): one made per connect, with its options
    /// and initializer, was a few percent of a new connection's CPU. Not with a source address,
    /// whose bind is per connection.
    private var bootstraps: [ClientBootstrap?] = []
    /// The connection being set up by a bootstrap's initializer, its pool, and the handler
    /// the initializer added.
    private var initializing: (id: ConnectionID, pool: LiveConnectionPool, device: ConnectionDevice?)?
    private var initialized: (any NIOPooledConnection)?
    /// Told each connection as it is established (tests read its channel's socket options).
    var established: ((any NIOPooledConnection) -> Void)?
    /// `client.http: h2`: a TLS connection whose server does not agree to h2 fails.
    let requiresH2: Bool
    /// Where TLS connections count what they spoke (nil: nowhere).
    let protocols: ConnectionProtocolTally?

    init(loop: any EventLoop, requiresH2: Bool = false, protocols: ConnectionProtocolTally? = nil) {
        eventLoop = loop
        self.requiresH2 = requiresH2
        self.protocols = protocols
    }

    func carries(_ endpoint: LiveEndpoint) -> Bool { true }

    /// The loop's iOS devices' TLS sessions (`ResumingTLSClientHandler`).
    let sessions = TLSSessionStore()

    func deviceEnded(_ visitor: Int) {
        sessions.forget(device: visitor)
    }

    func connect(_ request: ConnectionRequest, to endpoint: borrowing LiveEndpoint, for pool: LiveConnectionPool) {
        let bootstrap = bootstrap(for: request, to: endpoint)
        initializing = (request.id, pool, request.device)
        let connected = bootstrap.connectTimeout(request.timeout).connect(to: endpoint.address)
        initializing = nil
        let handler = initialized.take()
        let id = request.id
        connected.assumeIsolated().whenComplete { [established] result in
            switch result {
            case .success(let channel):
                if let handler {
                    established?(handler)
                    pool.connectionEstablished(id, connection: handler)
                } else {
                    channel.close(promise: nil)
                    pool.connectFailed(id, error: Self.initializerOutsideConnect)
                }
            case .failure(let error):
                pool.connectFailed(id, error: error)
            }
        }
    }

    private func bootstrap(for request: ConnectionRequest, to endpoint: borrowing LiveEndpoint) -> ClientBootstrap {
        if let source = request.source {
            return makeBootstrap(endpoint, index: request.endpointIndex, forVisitor: request.forVisitor).bind(
                to: source)
        }
        let key = request.endpointIndex * 2 + (request.forVisitor ? 1 : 0)
        if key >= bootstraps.count {
            bootstraps.append(contentsOf: repeatElement(nil, count: key + 1 - bootstraps.count))
        }
        if let made = bootstraps[key] { return made }
        let made = makeBootstrap(endpoint, index: request.endpointIndex, forVisitor: request.forVisitor)
        bootstraps[key] = made
        return made
    }

    /// The receive buffers of a visitor's own connections (`device`). A channel keeps its
    /// receive buffer between reads, grown to the largest read it has needed, and a waiting
    /// visitor's connections idle for most of the wait with answers of about 300 bytes (the
    /// room's enqueue and queue page answers): NIO's default first buffer of 2 KiB was two
    /// fifths of a waiting iOS visitor's memory (heaptrack, `bench/live-queue.sh`). 512 bytes
    /// read such an answer in one call and still grow for a real endpoint's larger pages.
    /// Shared connections keep NIO's default: there are few of them and they are never idle.
    static let visitorReceiveAllocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)

    /// A bootstrap for `endpoint`'s connections. Its initializer sets up the connection
    /// `initializing` names: NIO runs it inside `connect` when called on the channel's loop,
    /// as the pool always is; were it ever to run later, the connect fails with
    /// `initializerOutsideConnect` instead of setting up the wrong connection.
    private func makeBootstrap(
        _ endpoint: borrowing LiveEndpoint, index endpointIndex: Int, forVisitor: Bool
    ) -> ClientBootstrap {
        // Weakly: the factory keeps its bootstraps, and so their initializers.
        let bound = NIOLoopBound(WeakFactory(self), eventLoop: eventLoop)
        let (tls, serverHostname, requiresH2, protocols) = (
            endpoint.tls, endpoint.serverHostname, requiresH2, protocols
        )
        let visitorTLS = VisitorTLS(endpoint)
        // TCP_NODELAY is ClientBootstrap's default (`.tcpOption(.tcp_nodelay)`): a request leaves
        // in one write, as a phone's does. (`.socketOption(.tcp_nodelay)`, set here before,
        // named level SOL_SOCKET, where option 1 is SO_DEBUG: it needs CAP_NET_ADMIN, so every
        // connection of a user other than root failed with EACCES.)
        var bootstrap = ClientBootstrap(group: eventLoop)
        if forVisitor {
            bootstrap = bootstrap.channelOption(ChannelOptions.recvAllocator, value: Self.visitorReceiveAllocator)
        }
        return bootstrap.channelInitializer { channel in
            guard let factory = bound.value.factory, let (id, pool, device) = factory.initializing else {
                return channel.eventLoop.makeFailedFuture(Self.initializerOutsideConnect)
            }
            do {
                let pipeline = channel.pipeline.syncOperations
                if let tls {
                    try pipeline.addHandler(
                        try factory.tlsClient(
                            tls, serverHostname: serverHostname, endpoint: visitorTLS, endpointIndex: endpointIndex,
                            device: device))
                    let connection = LiveTLSConnection(
                        pool: pool, id: id, requiresH2: requiresH2,
                        tally: protocols.map { (tally: $0, endpoint: endpointIndex) })
                    if let protocols, let device, device.platform == .android {
                        // swift-nio-ssl offers no session: every handshake is full.
                        connection.handshakeCompleted = {
                            protocols.handshakeCompleted(platform: .android, resumed: false)
                        }
                    }
                    try pipeline.addHandler(connection)
                    factory.initialized = connection
                } else {
                    let handler = LiveHTTP1Handler(pool: pool, id: id)
                    try pipeline.addHandler(handler)
                    factory.initialized = handler
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
    }

    /// The TLS client of a connection: an iOS device's offers and keeps its sessions
    /// (`ResumingTLSClientHandler`); everything else is swift-nio-ssl's `NIOSSLClientHandler`,
    /// which has no session to offer: Android's per-attempt client has nothing to resume, and
    /// shared connections are no phone's. Both run BoringSSL, so a full handshake costs the same.
    /// `endpoint`: the bootstrap's, read only for the resuming client's context.
    private func tlsClient(
        _ tls: NIOSSLContext, serverHostname: String?, endpoint visitorTLS: VisitorTLS,
        endpointIndex: Int, device: ConnectionDevice?
    ) throws -> any ChannelHandler {
        if let visitorTLS = visitorTLS.context, let device, device.platform == .ios {
            let resumption = ResumingTLSClientHandler.Resumption(
                store: sessions, device: device.visitor, cache: device.sessionCache, endpoint: endpointIndex)
            let protocols = protocols
            return try ResumingTLSClientHandler(context: visitorTLS, resumption: resumption) { resumed in
                protocols?.handshakeCompleted(platform: .ios, resumed: resumed)
            }
        }
        return try NIOSSLClientHandler(context: tls, serverHostname: serverHostname)
    }

    static let initializerOutsideConnect = TransportError.other(
        "NIO set up a connection outside its connect call (the pool cannot tell which it is)")
}

/// A connection on a SwiftNIO channel, whichever protocol it speaks.
protocol NIOPooledConnection: PooledConnection {
    var channel: (any Channel)? { get }
}

extension LiveHTTP1Handler: NIOPooledConnection {}
extension LiveTLSConnection: NIOPooledConnection {}

/// A factory that may be gone: what a bootstrap's initializer holds.
private final class WeakFactory {
    weak var factory: NIOConnectionFactory?
    init(_ factory: NIOConnectionFactory) { self.factory = factory }
}

/// An endpoint's resuming TLS context for visitors' connections (nil: plain http).
private struct VisitorTLS: Sendable {
    let context: ResumingTLSClientContext?
    init(_ endpoint: borrowing LiveEndpoint) { context = endpoint.visitorTLS }
}
