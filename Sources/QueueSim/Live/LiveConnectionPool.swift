import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore

/// One event loop's keep-alive connections to the run's endpoint. At most `limit` are open
/// (connecting included); a request that finds none idle waits, first come first served, and
/// its wait counts against its `requestTimeout` like the rest of the exchange.
///
/// Loop-confined: every method runs on `loop`, so nothing here locks.
final class LiveConnectionPool {
    let loop: any EventLoop
    let endpoint: LiveEndpoint
    let limit: Int
    private let connectTimeout: TimeAmount
    /// Set once by the shard (or probe) that owns the pool. Weak: a connection that closes
    /// after its shard is gone still reaches the pool, which then has nobody to tell.
    weak var shard: (any LiveExchangeOwner)?
    private var open: [LiveConnection] = []
    private var idle: [LiveConnection] = []
    private var connecting = 0
    private var waiting = CircularBuffer<LiveExchange>()
    /// Connections opened over the run (a test counts them: keep-alive reuses).
    private(set) var connectionsOpened = 0

    var defaultAuthority: String { endpoint.authority }
    private var encodedHeads = EncodedHeads()
    /// Connections written to in this tick of the loop, flushed together when it ends.
    private var unflushed: [LiveHTTP1Handler] = []

    /// Flushes `handler`'s written request once the loop has handled every event of this
    /// tick, with the others written in it.
    func flushAtEndOfTick(_ handler: LiveHTTP1Handler) {
        unflushed.append(handler)
        guard unflushed.count == 1 else { return }
        loop.assumeIsolated().execute { [self] in
            let handlers = unflushed
            unflushed.removeAll(keepingCapacity: true)
            for handler in handlers { handler.flush() }
        }
    }

    /// The request's bytes for one of this pool's connections.
    func encode(_ request: OutgoingRequest, allocator: ByteBufferAllocator) -> ByteBuffer {
        LiveRequestEncoding.encode(
            request, defaultAuthority: endpoint.authority, allocator: allocator, heads: &encodedHeads)
    }

    init(loop: any EventLoop, endpoint: LiveEndpoint, limit: Int, connectTimeout: Duration) {
        self.loop = loop
        self.endpoint = endpoint
        self.limit = max(1, limit)
        self.connectTimeout = .nanoseconds(max(1, connectTimeout.wholeNanoseconds))
    }

    func send(_ exchange: LiveExchange) {
        waiting.append(exchange)
        dispatch()
    }

    /// When the exchange last made progress on its connection; nil while it waits for one.
    func lastProgress(slot: Int, serial: UInt32) -> NIODeadline? {
        for connection in open where connection.carries(slot: slot, serial: serial) {
            return connection.lastProgress
        }
        return nil
    }

    /// The exchange's deadline passed: close its connection, or forget it if it still waits.
    func abort(slot: Int, serial: UInt32) {
        for connection in open where connection.carries(slot: slot, serial: serial) {
            connection.abort()
            return
        }
        // A waiting exchange is dropped when it comes up (the shard no longer awaits it).
    }

    /// Connections to open ahead of need (a planned burst), a few at a time (`warmStep`).
    private var warmRemaining = 0
    private static let warmBatch = 32

    /// Opens up to `count` connections ahead of need, within the limit: `warmBatch` now and
    /// as many at every `warmStep`, so the first arrivals do not wait behind hundreds of
    /// connects.
    func warm(_ count: Int) {
        warmRemaining = count
        warmStep()
    }

    func warmStep() {
        guard warmRemaining > 0 else { return }
        let batch = max(0, min(warmRemaining, Self.warmBatch, limit - open.count))
        warmRemaining = batch == 0 ? 0 : warmRemaining - batch
        for _ in 0..<batch { connect() }
    }

    func closeAll() {
        waiting.removeAll()
        idle.removeAll()
        for connection in open { connection.close() }
    }

    private func dispatch() {
        while let first = waiting.first {
            guard let shard, shard.awaits(slot: first.slot, serial: first.serial) else {
                waiting.removeFirst()
                continue
            }
            guard let connection = popIdle() else { break }
            waiting.removeFirst()
            connection.begin(first, allocator: ByteBufferAllocator())
        }
        var wanted = waiting.count - connecting
        while wanted > 0, open.count < limit {
            connect()
            wanted -= 1
        }
    }

    private func popIdle() -> LiveConnection? {
        while let connection = idle.popLast() {
            if case .idle = connection.state { return connection }
        }
        return nil
    }

    private func connect() {
        let connection = LiveConnection(pool: self)
        add(connection)
        connecting += 1
        connectionsOpened += 1
        let endpoint = endpoint
        let bound = NIOLoopBound(connection, eventLoop: loop)
        ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                do {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls = endpoint.tls {
                        try pipeline.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: endpoint.serverHostname))
                    }
                    try pipeline.addHandler(LiveHTTP1Handler(connection: bound.value))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(to: endpoint.address)
            .assumeIsolated()
            .whenComplete { [self] result in
                connecting -= 1
                switch result {
                case .success(let channel):
                    guard case .connecting = connection.state,
                        let collector = try? channel.pipeline.syncOperations.handler(type: LiveHTTP1Handler.self)
                    else {
                        remove(connection)
                        dispatch()
                        return
                    }
                    connection.connected(collector)
                    idle.append(connection)
                    dispatch()
                case .failure(let error):
                    remove(connection)
                    failFirstWaiting(LiveTransportErrors.map(error))
                    dispatch()
                }
            }
    }

    /// A connection that could not be made fails the oldest request waiting for one, as the
    /// SDKs' HTTP stacks report a refused connection at once; the client core's own backoff
    /// decides what comes next.
    private func failFirstWaiting(_ error: TransportError) {
        while let first = waiting.popFirst() {
            guard let shard, shard.awaits(slot: first.slot, serial: first.serial) else { continue }
            shard.exchangeCompleted(slot: first.slot, serial: first.serial, result: .failure(error))
            return
        }
    }

    // MARK: - From connections

    func exchangeEnded(
        _ exchange: LiveExchange, on connection: LiveConnection, result: Result<IncomingResponse, TransportError>,
        mayResend: Bool = false
    ) {
        switch connection.state {
        case .idle: idle.append(connection)
        case .closed: remove(connection)
        case .connecting, .busy: break
        }
        if mayResend, case .failure = result {
            var again = exchange
            again.resent = true
            waiting.prepend(again)
        } else {
            shard?.exchangeCompleted(slot: exchange.slot, serial: exchange.serial, result: result)
        }
        dispatch()
    }

    /// A connection with no exchange on it closed (the server's idle close, say).
    func connectionClosed(_ connection: LiveConnection) {
        remove(connection)
        dispatch()
    }

    private func add(_ connection: LiveConnection) {
        connection.poolIndex = open.count
        open.append(connection)
    }

    private func remove(_ connection: LiveConnection) {
        let index = connection.poolIndex
        guard index >= 0, index < open.count, open[index] === connection else { return }
        let last = open.removeLast()
        if last !== connection {
            open[index] = last
            last.poolIndex = index
        }
        connection.poolIndex = -1
    }
}
