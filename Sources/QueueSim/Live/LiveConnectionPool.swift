import NIOCore
import NIOPosix
import NIOSSL
import QueueClientCore

/// One event loop's keep-alive connections to the run's endpoint: the thin adapter that
/// performs `ConnectionPoolStateMachine`'s decisions with NIO. At most `limit` are open
/// (connecting included); a request that finds none idle waits, first come first served, and
/// its wait counts against its `requestTimeout` like the rest of the exchange.
///
/// The send path runs one way: the pool encodes the request, schedules the flush and hands
/// the bytes to the connection's handler, which only writes them.
///
/// Loop-confined: every method runs on `loop`, so nothing here locks.
final class LiveConnectionPool {
    let loop: any EventLoop
    let endpoint: LiveEndpoint
    var limit: Int { machine.limit }
    private let connectTimeout: TimeAmount
    /// Set once by the loop driver (or probe) that owns the pool. Weak: a connection that closes
    /// after its owner is gone still reaches the pool, which then has nobody to tell.
    weak var owner: (any LiveExchangeOwner)?
    private var machine: ConnectionPoolStateMachine
    /// The handler of each established connection, by its `ConnectionID.index`.
    private var handlers: [LiveHTTP1Handler?] = []
    /// Connections opened over the run (a test counts them: keep-alive reuses).
    var connectionsOpened: Int { machine.connectionsOpened }
    /// Opens connection `id` and reports `connectionEstablished` or `connectFailed`; nil:
    /// a TCP (and TLS) connection to `endpoint`. Tests put an `EmbeddedChannel` here.
    var connector: ((LiveConnectionPool, ConnectionID) -> Void)?

    var defaultAuthority: String { endpoint.authority }
    private var encodedHeads = EncodedHeads()
    /// Connections written to in this tick of the loop, flushed together when it ends.
    private var unflushed: [LiveHTTP1Handler] = []

    /// Why waiters and exchanges in flight fail when the pool is closed under them.
    static let closedError = TransportError.other("the connection pool was closed")

    /// The run's clock: when an exchange last made progress is an instant on it, the same time
    /// base as the driver's deadlines.
    let clock: WallClock

    init(
        loop: any EventLoop, endpoint: LiveEndpoint, limit: Int, connectTimeout: Duration,
        clock: WallClock = WallClock()
    ) {
        self.clock = clock
        self.loop = loop
        self.endpoint = endpoint
        machine = ConnectionPoolStateMachine(limit: limit)
        self.connectTimeout = .nanoseconds(max(1, connectTimeout.wholeNanoseconds))
    }

    // MARK: - From the owner

    func send(_ exchange: LiveExchange) {
        perform(machine.requestQueued(exchange))
    }

    /// When the exchange last made progress on its connection; nil while it waits for one.
    func lastProgress(slot: Int, serial: UInt32) -> RunInstant? {
        guard let id = machine.connection(carrying: ExchangeID(slot: slot, serial: serial)) else { return nil }
        return handlers[id.index]?.lastProgress
    }

    /// The exchange's deadline passed: close its connection, or drop it if it still waits.
    func abort(slot: Int, serial: UInt32) {
        perform(machine.abortExchange(ExchangeID(slot: slot, serial: serial)))
    }

    /// Opens up to `count` connections ahead of need (a planned burst), within the limit, a
    /// batch now and one at every `warmStep`.
    func warm(_ count: Int) {
        perform(machine.warm(count))
    }

    func warmStep() {
        perform(machine.warmStep())
    }

    /// Closes every connection; waiters and exchanges in flight fail with `closedError`.
    func closeAll() {
        let action = machine.closeAll()
        for id in action.close { handlers[id.index]?.close() }
        for exchange in action.fail {
            owner?.exchangeCompleted(slot: exchange.slot, serial: exchange.serial, result: .failure(Self.closedError))
        }
    }

    // MARK: - From connections

    func connectionEstablished(_ id: ConnectionID, handler: LiveHTTP1Handler) {
        if id.index >= handlers.count {
            handlers.append(contentsOf: repeatElement(nil, count: id.index + 1 - handlers.count))
        }
        handlers[id.index] = handler
        perform(machine.connectionEstablished(id))
    }

    func connectFailed(_ id: ConnectionID, error: any Error) {
        perform(machine.connectFailed(id, error: LiveTransportErrors.map(error)))
    }

    func exchangeAnswered(on id: ConnectionID, _ response: IncomingResponse, reusable: Bool) {
        perform(machine.exchangeSucceeded(on: id, reusable: reusable), response: response)
    }

    /// The connection's channel closed (by either side) or failed. `error` is why, when NIO said.
    func connectionEnded(_ id: ConnectionID, error: (any Error)?, receivedResponseBytes: Bool) {
        let action = machine.connectionClosed(
            id, error: error.map(LiveTransportErrors.map) ?? .connectionReset,
            receivedResponseBytes: receivedResponseBytes)
        if id.index < handlers.count, handlers[id.index]?.id == id { handlers[id.index] = nil }
        perform(action)
    }

    // MARK: - Performing the machine's actions

    /// Carries out `first` and what the machine answers along the way. The owner is called
    /// last: it may send again from inside `exchangeCompleted`, and the machine has already
    /// settled this event by then.
    private func perform(_ first: ConnectionPoolStateMachine.Action, response: IncomingResponse? = nil) {
        var next: ConnectionPoolStateMachine.Action? = first
        var response = response
        while let action = next {
            next = nil
            if let id = action.close { handlers[id.index]?.close() }
            for id in action.connect { connect(id) }
            if let execution = action.execute {
                let exchange = execution.exchange
                if let owner, owner.awaits(slot: exchange.slot, serial: exchange.serial) {
                    send(exchange, on: execution.connection)
                } else {
                    next = machine.exchangeWithdrawn(on: execution.connection)
                }
            }
            switch action.complete {
            case .succeeded(let exchange):
                guard let answer = response else { preconditionFailure("an exchange succeeded without its answer") }
                response = nil
                owner?.exchangeCompleted(slot: exchange.slot, serial: exchange.serial, result: .success(answer))
            case .failed(let exchange, let error):
                owner?.exchangeCompleted(slot: exchange.slot, serial: exchange.serial, result: .failure(error))
            case nil:
                break
            }
        }
    }

    /// Encodes the request, schedules the flush, then hands the bytes to the connection.
    private func send(_ exchange: LiveExchange, on id: ConnectionID) {
        guard let handler = handlers[id.index] else {
            preconditionFailure("an exchange on a connection not established")
        }
        let bytes = LiveRequestEncoding.encode(
            exchange.request, defaultAuthority: endpoint.authority, allocator: ByteBufferAllocator(),
            heads: &encodedHeads)
        flushAtEndOfTick(handler)
        handler.write(bytes)
    }

    /// Flushes `handler`'s written request once the loop has handled every event of this
    /// tick, with the others written in it.
    private func flushAtEndOfTick(_ handler: LiveHTTP1Handler) {
        unflushed.append(handler)
        guard unflushed.count == 1 else { return }
        loop.assumeIsolated().execute { [self] in
            let handlers = unflushed
            unflushed.removeAll(keepingCapacity: true)
            for handler in handlers { handler.flush() }
        }
    }

    private func connect(_ id: ConnectionID) {
        if let connector {
            connector(self, id)
            return
        }
        let endpoint = endpoint
        let bound = NIOLoopBound(self, eventLoop: loop)
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
                    try pipeline.addHandler(LiveHTTP1Handler(pool: bound.value, id: id))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(to: endpoint.address)
            .assumeIsolated()
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    do {
                        let handler = try channel.pipeline.syncOperations.handler(type: LiveHTTP1Handler.self)
                        connectionEstablished(id, handler: handler)
                    } catch {
                        channel.close(promise: nil)
                        connectFailed(id, error: error)
                    }
                case .failure(let error):
                    connectFailed(id, error: error)
                }
            }
    }
}
