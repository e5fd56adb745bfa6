import NIOCore
import QueueClientCore

/// One event loop's connections to the run's endpoints (the waiting room's, and a protected
/// API's own): the thin adapter that performs `ConnectionPoolStateMachine`'s decisions with
/// a `ConnectionFactory` (the transport chosen for the run). At most `limit` are open (connecting included); a request that finds none idle for its
/// owner waits, first come first served, and its wait counts against its `requestTimeout` like
/// the rest of the exchange. Whose connections an exchange rides (shared keep-alive ones, or
/// its visitor's own) is the exchange's `owner`.
///
/// The send path runs one way: the pool encodes the request, schedules the flush and hands
/// the bytes to the connection's handler, which only writes them.
///
/// Loop-confined: every method runs on `loop`, so nothing here locks.
final class LiveConnectionPool {
    let loop: any EventLoop
    /// Where connections go, by `ConnectionOwner.endpoint`: the room's first, hosts met
    /// mid-run (`addEndpoints`) last.
    private(set) var endpoints: [LiveEndpoint]
    var endpoint: LiveEndpoint { endpoints[0] }
    var limit: Int { machine.limit }
    /// Local addresses connections are made from, in turn (a visitor's all from one); empty:
    /// the system's choice.
    var sourceAddresses: [SocketAddress] = []
    /// New connections per second of the run (a report's chart beside arrivals).
    private(set) var opened = PerSecondCounts()
    private let connectTimeout: TimeAmount
    /// The connect timeout of connections opened right now for an exchange (`send`).
    private var connectTimeoutOfOpening: TimeAmount?
    /// Set by the loop driver (or probe) that owns the pool, and let go (`nil`) by it when it is
    /// done: a connection that closes after that still reaches the pool, which then has nobody
    /// to tell. Strong, and the owner breaks the cycle: a weak reference lives in the object's
    /// side table, and reading it at every event (an atomic load, then a retain and a release
    /// on the runtime's slow path) was 2 % of a keep-alive request's CPU.
    var owner: (any LiveExchangeOwner)?
    private var machine: ConnectionPoolStateMachine
    /// Each established connection, by its `ConnectionID.index`.
    private var connections: [(any PooledConnection)?] = []
    /// Makes the pool's connections on `loop`: the run's transport.
    private let factory: any ConnectionFactory

    /// Connections opened over the run (a test counts them: keep-alive reuses).
    var connectionsOpened: Int { machine.connectionsOpened }

    private var encodedHeads = EncodedHeads()

    /// Why waiters and exchanges in flight fail when the pool is closed under them.
    static let closedError = TransportError.other("the connection pool was closed")

    /// The run's clock: when an exchange last made progress is an instant on it, the same time
    /// base as the driver's deadlines.
    let clock: WallClock

    /// When each connection's connect began, by its `ConnectionID.index`.
    private var connectStarted: [RunInstant] = []
    /// Connects to a host met mid-run that has more addresses to try.
    private var addressFallback = ConnectAddressFallback()

    /// The timer that closes idle connections whose `IdleLifetime` is over, and when it fires.
    private var idleTimer: (at: RunInstant, task: Scheduled<Void>)?
    /// Connections held open for nobody (Android's abandoned enqueue clients'), the most in
    /// each second (run.json's `idle_connections_peak`).
    private(set) var heldIdle = HeldIdleSeries()
    /// The platforms of the visitors with TLS connections on this loop, until they end: a TLS
    /// client behaves as its phone's (`ConnectionRequest.device`: iOS resumes sessions).
    private var tlsDevices: [Int: ClientPlatform] = [:]

    convenience init(
        connections factory: any ConnectionFactory, endpoint: LiveEndpoint, limit: Int, connectTimeout: Duration,
        clock: WallClock = WallClock()
    ) {
        self.init(
            connections: factory, endpoints: [endpoint], limit: limit, connectTimeout: connectTimeout, clock: clock)
    }

    /// A pool on `factory`'s loop, whose connections `factory` makes. Every endpoint must be one
    /// the factory carries: the run's transport was chosen for them.
    init(
        connections factory: any ConnectionFactory, endpoints: [LiveEndpoint], limit: Int, connectTimeout: Duration,
        clock: WallClock = WallClock()
    ) {
        precondition(!endpoints.isEmpty && endpoints.count <= 256, "a pool has 1 to 256 endpoints")
        precondition(endpoints.allSatisfy(factory.carries), "an endpoint the run's transport cannot carry")
        self.clock = clock
        self.factory = factory
        loop = factory.eventLoop
        self.endpoints = endpoints
        machine = ConnectionPoolStateMachine(limit: limit)
        self.connectTimeout = .nanoseconds(max(1, connectTimeout.wholeNanoseconds))
    }

    // MARK: - From the owner

    /// Endpoints of hosts met mid-run (`MidRunHosts`), numbered after the pool's last: their
    /// connections are the pool's like any other's (the limit, a visitor's end, `closeAll`).
    /// One the factory does not carry (https on the plain transport) only keeps the numbering:
    /// its exchanges go to a pool that carries it (`TLSSidePool`), never to this one.
    func addEndpoints(_ more: [LiveEndpoint]) {
        precondition(endpoints.count + more.count <= 256, "a pool has 1 to 256 endpoints")
        endpoints += more
    }

    /// Whether the pool's transport carries endpoint `index`'s connections.
    func carries(endpoint index: Int) -> Bool {
        factory.carries(endpoints[index])
    }

    /// How long a connection may take to connect when its exchange names no bound.
    var defaultConnectTimeout: Duration { .nanoseconds(connectTimeout.nanoseconds) }

    /// `now`: the caller's reading of the clock, if it has one (the request's write is stamped
    /// with it; the clock is read once per event, not at each step).
    func send(_ exchange: LiveExchange, at now: RunInstant? = nil) {
        // A connection opened for this exchange connects within its request's bound: a
        // connect the request has given up on must not hold a place (and a descriptor) longer.
        connectTimeoutOfOpening = exchange.connectTimeout.map { .nanoseconds(max(1, $0.wholeNanoseconds)) }
        defer { connectTimeoutOfOpening = nil }
        if exchange.owner.isVisitor, let platform = exchange.platform,
            endpoints[Int(exchange.owner.endpoint)].tls != nil
        {
            tlsDevices[exchange.owner.visitor] = platform
        }
        perform(machine.requestQueued(exchange), at: now)
    }

    /// When the exchange last made progress on its connection; nil while it waits for one.
    func lastProgress(slot: Int, serial: UInt32) -> RunInstant? {
        guard let id = machine.connection(carrying: ExchangeID(slot: slot, serial: serial)) else { return nil }
        return connections[id.index]?.lastProgress
    }

    /// The exchange's deadline passed: close its connection (at once, not with the tick's other
    /// closes: its answer may still be arriving), or drop it if it still waits.
    func abort(slot: Int, serial: UInt32) {
        let action = machine.abortExchange(ExchangeID(slot: slot, serial: serial))
        if let id = action.close { connections[id.index]?.close() }
    }

    /// Opens up to `count` connections ahead of need (a planned burst), within the limit, a
    /// batch now and one at every `warmStep`.
    func warm(_ count: Int) {
        perform(machine.warm(count))
    }

    func warmStep() {
        perform(machine.warmStep())
    }

    /// A visitor has ended: the connections it owned and holds idle close (not those `held`
    /// for nobody: Android's abandoned enqueue connections wait for the server or their bound).
    func visitorEnded(_ owners: [ConnectionOwner]) {
        for id in machine.visitorEnded(owners) { connections[id.index]?.close() }
        if let visitor = owners.first?.visitor, tlsDevices.removeValue(forKey: visitor) != nil {
            factory.deviceEnded(visitor)
        }
    }

    /// Closes every connection; waiters and exchanges in flight fail with `closedError`.
    func closeAll() {
        idleTimer?.task.cancel()
        idleTimer = nil
        let now = clock.now
        heldIdle.record(machine.heldCount, atSecond: now.secondOfRun)
        let action = machine.closeAll()
        heldIdle.record(0, atSecond: now.secondOfRun)
        for id in action.close { connections[id.index]?.close() }
        guard !action.fail.isEmpty else { return }
        for exchange in action.fail {
            owner?.exchangeCompleted(
                slot: exchange.slot, serial: exchange.serial, result: .failure(Self.closedError), handshake: nil,
                at: now)
        }
    }

    // MARK: - From connections

    func connectionEstablished(_ id: ConnectionID, connection: any PooledConnection) {
        if id.index >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: id.index + 1 - connections.count))
        }
        connections[id.index] = connection
        if !addressFallback.isEmpty { addressFallback.ended(id) }
        if id.index < connectStarted.count { connection.connected(after: clock.now - connectStarted[id.index]) }
        perform(machine.connectionEstablished(id))
    }

    func connectFailed(_ id: ConnectionID, error: any Error) {
        if !addressFallback.isEmpty {
            // Not for a connection closed while it connected (`closeAll`, its visitor's end):
            // nobody waits for it.
            guard machine.isStillConnecting(id) else {
                addressFallback.ended(id)
                return perform(machine.connectFailed(id, error: LiveTransportErrors.map(error)))
            }
            let owner = machine.owner(of: id)
            if let (endpoint, left) = addressFallback.next(after: id, of: endpoints[Int(owner.endpoint)]) {
                return factory.connect(connectionRequest(id, owner: owner, timeout: left), to: endpoint, for: self)
            }
        }
        perform(machine.connectFailed(id, error: LiveTransportErrors.map(error)))
    }

    /// `now`: when the answer's last bytes were read.
    func exchangeAnswered(
        on id: ConnectionID, _ response: consuming IncomingResponse, reusable: Bool, at now: RunInstant
    ) {
        let connection = connections[id.index]
        let handshake = connection?.takeHandshake()
        perform(
            machine.exchangeSucceeded(on: id, reusable: reusable, at: now), response: response, handshake: handshake,
            spoke: connection?.spokenProtocol, at: now)
        if machine.heldCount != heldIdle.level { heldIdle.record(machine.heldCount, atSecond: now.secondOfRun) }
        if machine.hasIdleDeadlines { armIdleTimer(now: now) }
    }

    /// The connection's channel closed (by either side) or failed. `error` is why, when NIO said.
    /// `unprocessed`: the server said it did not process the exchange in flight (h2), which
    /// may then be sent again once.
    func connectionEnded(
        _ id: ConnectionID, error: (any Error)?, receivedResponseBytes: Bool, unprocessed: Bool = false
    ) {
        let action = machine.connectionClosed(
            id, error: error.map(LiveTransportErrors.map) ?? .connectionReset,
            receivedResponseBytes: receivedResponseBytes, unprocessed: unprocessed)
        var handshake: Handshake?
        if id.index < connections.count, let handler = connections[id.index], handler.id == id {
            handshake = handler.takeHandshake()
            connections[id.index] = nil
        }
        // A held connection the server closed (its idle timeout).
        if machine.heldCount != heldIdle.level { heldIdle.record(machine.heldCount, atSecond: clock.now.secondOfRun) }
        perform(action, handshake: handshake)
    }

    // MARK: - Idle connections' lifetimes

    /// Arms the idle timer for the machine's next idle deadline, unless it fires before that.
    private func armIdleTimer(now: RunInstant) {
        guard let next = machine.nextIdleDeadline else { return }
        if let armed = idleTimer {
            guard next < armed.at else { return }
            armed.task.cancel()
        }
        let task = loop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, (next - now).wholeNanoseconds))) {
            [self] in idleTimerFired()
        }
        idleTimer = (next, task)
    }

    /// Closes the connections whose idle lifetime is over (they count until their channel is
    /// gone), then waits for the next deadline.
    private func idleTimerFired() {
        idleTimer = nil
        let now = clock.now
        for id in machine.expireIdle(at: now) { connections[id.index]?.close() }
        if machine.heldCount != heldIdle.level { heldIdle.record(machine.heldCount, atSecond: now.secondOfRun) }
        armIdleTimer(now: now)
    }

    // MARK: - Performing the machine's actions

    /// Carries out `first` and what the machine answers along the way. The owner is called
    /// last: it may send again from inside `exchangeCompleted`, and the machine has already
    /// settled this event by then. `now`: the event's instant, when its caller read the clock
    /// (else it is read here, once, if a request goes out or an exchange completes).
    /// `spoke`: the HTTP version of the connection whose answer `response` is.
    private func perform(
        _ first: consuming ConnectionPoolStateMachine.Action, response: consuming IncomingResponse? = nil,
        handshake: Handshake? = nil, spoke: SpokenProtocol? = nil, at now: RunInstant? = nil
    ) {
        var now = now
        // Consumed, so the answer and the action move through (a consuming parameter is
        // mutable) instead of being copied into local variables first.
        var next: ConnectionPoolStateMachine.Action? = consume first
        var handshake = handshake
        // Read once per event, not at each use.
        let owner = owner
        // Taken, not bound: an action (its exchange's request) is moved through, not copied.
        while let action = next.take() {
            if let id = action.close, let handler = connections[id.index] {
                endOfTick.closes.append(handler)
                scheduleEndOfTick()
            }
            for id in action.connect { connectAtEndOfTick(id, timeout: connectTimeoutOfOpening ?? connectTimeout) }
            if let execution = action.execute {
                let exchange = execution.exchange
                if let owner, owner.awaits(slot: exchange.slot, serial: exchange.serial) {
                    let instant = now ?? clock.now
                    now = instant
                    send(exchange, on: execution.connection, fresh: execution.freshConnection, at: instant)
                } else {
                    next = machine.exchangeWithdrawn(on: execution.connection)
                }
            }
            guard let complete = action.complete else { continue }
            let instant = now ?? clock.now
            now = instant
            switch complete {
            case .succeeded(let exchange):
                guard let answer = response.take() else {
                    preconditionFailure("an exchange succeeded without its answer")
                }
                owner?.exchangeCompleted(
                    slot: exchange.slot, serial: exchange.serial, result: .success(answer), handshake: handshake.take(),
                    spoke: spoke, at: instant)
            case .failed(let exchange, let error):
                owner?.exchangeCompleted(
                    slot: exchange.slot, serial: exchange.serial, result: .failure(error), handshake: handshake.take(),
                    at: instant)
            }
        }
    }

    /// Schedules the flush, then hands the request to the connection, which frames it.
    private func send(_ exchange: borrowing LiveExchange, on id: ConnectionID, fresh: Bool, at now: RunInstant) {
        guard let handler = connections[id.index] else {
            preconditionFailure("an exchange on a connection not established")
        }
        if fresh { handler.markFirstExchange(exchange.id) }
        flushAtEndOfTick(handler)
        // The authority alone, not the endpoint: a copy of it retained each of its references.
        handler.write(
            exchange, defaultAuthority: endpoints[Int(exchange.owner.endpoint)].authority, heads: &encodedHeads,
            keep: !exchange.owner.isVisitor, at: now)
    }

    /// Flushes `handler`'s written request once the loop has handled every event of this
    /// tick, with the others written in it.
    private func flushAtEndOfTick(_ handler: any PooledConnection) {
        endOfTick.flushes.append(handler)
        scheduleEndOfTick()
    }

    /// What the pool does once the loop has handled every event of a tick: connections opened,
    /// requests flushed, then connections closed, each kind together. On the way to a server
    /// they come in bursts, so its process is woken once for many of them rather than once each
    /// (on loopback the client's core pays those wake-ups inside its own `connect` and `close`:
    /// the handshake and the FIN are delivered there). Connects wait for at most
    /// `deferredConnectsLimit` others: a connect can cost a millisecond (Linux's search for a
    /// free local port with ~18,000 connections open to one address), and a whole tick of them
    /// batched held arrivals back (`bench/live-queue.sh 9000`: arrival lag p99 5 to 110 ms;
    /// 6–8 to 12–13 ms with the limit).
    private struct EndOfTick {
        var connects: [(id: ConnectionID, timeout: TimeAmount)] = []
        var flushes: [any PooledConnection] = []
        var closes: [any PooledConnection] = []
        var scheduled = false
    }

    private var endOfTick = EndOfTick()
    /// The arrays of the tick before, emptied, kept for their capacity.
    private var spareEndOfTick = EndOfTick()

    private func scheduleEndOfTick() {
        guard !endOfTick.scheduled else { return }
        endOfTick.scheduled = true
        loop.assumeIsolated().execute { [self] in runEndOfTick() }
    }

    private func runEndOfTick() {
        // What this runs may queue more (a close that fails a waiter, say): for a next turn.
        var work = EndOfTick()
        swap(&work, &spareEndOfTick)
        swap(&work, &endOfTick)
        for (id, timeout) in work.connects { connect(id, timeout: timeout) }
        for handler in work.flushes { handler.flush() }
        for handler in work.closes { handler.close() }
        work.connects.removeAll(keepingCapacity: true)
        work.flushes.removeAll(keepingCapacity: true)
        work.closes.removeAll(keepingCapacity: true)
        work.scheduled = false
        spareEndOfTick = work
    }

    /// At most this many connects wait for the tick's end: the next one sends them at once.
    static let deferredConnectsLimit = 16

    private func connectAtEndOfTick(_ id: ConnectionID, timeout: TimeAmount) {
        if endOfTick.connects.count >= Self.deferredConnectsLimit {
            let waiting = endOfTick.connects
            endOfTick.connects.removeAll(keepingCapacity: true)
            for (id, timeout) in waiting { connect(id, timeout: timeout) }
        }
        endOfTick.connects.append((id, timeout))
        scheduleEndOfTick()
    }

    private func connect(_ id: ConnectionID, timeout: TimeAmount) {
        let now = clock.now
        opened.add(at: now.secondOfRun)
        if id.index >= connectStarted.count {
            connectStarted.append(contentsOf: repeatElement(now, count: id.index + 1 - connectStarted.count))
        }
        connectStarted[id.index] = now
        let owner = machine.owner(of: id)
        let endpoint = Int(owner.endpoint)
        precondition(factory.carries(endpoints[endpoint]), "an endpoint the run's transport cannot carry")
        if !endpoints[endpoint].fallbackAddresses.isEmpty {
            addressFallback.started(id, to: endpoints[endpoint], timeout: timeout)
        }
        factory.connect(connectionRequest(id, owner: owner, timeout: timeout), to: endpoints[endpoint], for: self)
    }

    private func connectionRequest(_ id: ConnectionID, owner: ConnectionOwner, timeout: TimeAmount) -> ConnectionRequest
    {
        ConnectionRequest(
            id: id, endpointIndex: Int(owner.endpoint), forVisitor: owner.isVisitor,
            source: sourceAddress(of: id, owner: owner), timeout: timeout,
            device: owner.isVisitor
                ? tlsDevices[owner.visitor].map {
                    ConnectionDevice(visitor: owner.visitor, platform: $0, role: owner.role)
                }
                : nil)
    }

    /// The local address connection `id` leaves from (`sourceAddresses` in turn), nil for the
    /// system's choice. A visitor's connections all leave from one address, as a phone's do.
    private func sourceAddress(of id: ConnectionID, owner: ConnectionOwner) -> SocketAddress? {
        guard !sourceAddresses.isEmpty else { return nil }
        let turn = owner.isVisitor ? owner.visitor : id.index
        return sourceAddresses[turn % sourceAddresses.count]
    }
}
