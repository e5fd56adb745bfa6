import NIOCore
import QueueClientCore

/// The TLS connections of a run on queuesim's plain transport, which carries none: visitors
/// meet `https` hosts mid-run that no route names (an off-host redirect, a queue URL on its
/// own domain), and a phone connects to them. Their exchanges go to a pool of their own on one
/// of SwiftNIO's loops (`NIOConnectionFactory`: TLS, h2 by ALPN, iOS devices resuming
/// sessions, as on any https run), made when the first one is needed; answers come back to
/// the driver's loop. The run's own endpoints stay on the plain loop: only these exchanges
/// cross loops, and the plain transport's path is untouched.
///
/// Its connections are counted with the driver's (`Figures`): run.json's `connections_opened`,
/// the connections chart and the idle peak. They have a limit of their own, the driver's. Its
/// loop is probed as the driver's is (`GeneratorHealth`), from the first exchange to the end:
/// a side loop that cannot keep up makes the run's generator verdict say so.
///
/// The driver's side of it: every method runs on the driver's loop; the pool lives on
/// `carrier.loop` and is reached only through that loop's queue (`execute`, `submit`).
final class TLSSidePool {
    /// Where, and how, the side pool's connections are made: a SwiftNIO loop, the run's
    /// `client.http` and where TLS connections count what they spoke.
    struct Carrier: Sendable {
        var loop: any EventLoop
        var requiresH2: Bool
        var protocols: ConnectionProtocolTally?
    }

    /// The pool's shape: the driver's endpoints (hosts met mid-run are added as they come,
    /// numbered as in the driver's pool), limit, connect bound, clock and source addresses.
    struct Setup: Sendable {
        var endpoints: [LiveEndpoint]
        var limit: Int
        var connectTimeout: Duration
        var clock: WallClock
        var sourceAddresses: [SocketAddress]
        var midRunHosts: MidRunHosts
    }

    /// What the side pool adds to the driver's figures: its connections, and its loop's lag
    /// (with the connections it held idle).
    struct Figures: Sendable {
        var connectionsOpened = 0
        var opened = PerSecondCounts()
        var health = GeneratorHealth()
    }

    /// An exchange as it crosses to the pool's loop (a `LiveExchange` is confined to one).
    struct Order: Sendable {
        var slot: Int
        var serial: UInt32
        var request: OutgoingRequest
        var owner: ConnectionOwner
        var oneUse: Bool
        var connectTimeout: Duration?
        var idleLifetime: IdleLifetime
        var platform: ClientPlatform?

        var id: ExchangeID { ExchangeID(slot: slot, serial: serial) }

        func makeExchange() -> LiveExchange {
            let exchange = LiveExchange(slot: slot, serial: serial, request: request, owner: owner, oneUse: oneUse)
            exchange.connectTimeout = connectTimeout
            exchange.idleLifetime = idleLifetime
            exchange.platform = platform
            return exchange
        }
    }

    let carrier: Carrier
    private let setup: Setup
    /// The pool and its owner on `carrier.loop`; nil until the first exchange, and after `close`.
    private let side: NIOLoopBoundBox<SideOwner?>
    /// The driver, answered on its loop.
    private let driver: NIOLoopBound<LoopDriver>
    /// The exchanges sent and not yet answered: the driver asks here whose deadline is on
    /// the other loop.
    private var inFlight: Set<ExchangeID> = []
    private var closed = false

    /// On the driver's loop.
    init(carrier: Carrier, setup: Setup, driver: LoopDriver) {
        self.carrier = carrier
        self.setup = setup
        self.driver = NIOLoopBound(driver, eventLoop: driver.loop)
        side = NIOLoopBoundBox.makeEmptyBox(valueType: SideOwner.self, eventLoop: carrier.loop)
    }

    /// Whether request `serial` of `slot` went to this pool and has not been answered.
    func hasOutstanding(slot: Int, serial: UInt32) -> Bool {
        !inFlight.isEmpty && inFlight.contains(ExchangeID(slot: slot, serial: serial))
    }

    /// Sends `order` on the pool's loop (making the pool first, and adding the hosts met mid-run
    /// since the last exchange to its endpoints).
    func send(_ order: Order) {
        guard !closed else { return }
        inFlight.insert(order.id)
        let (side, setup, carrier, driver) = (side, setup, carrier, driver)
        carrier.loop.execute {
            let owner = side.value ?? SideOwner.make(carrier: carrier, setup: setup, driver: driver)
            side.value = owner
            guard !owner.closed else { return }
            let index = Int(order.owner.endpoint)
            if index >= owner.pool.endpoints.count {
                owner.pool.addEndpoints(setup.midRunHosts.endpoints(from: owner.pool.endpoints.count, through: index))
            }
            owner.pool.send(order.makeExchange())
        }
    }

    /// The answer to `id` reached the driver: it is no longer out there.
    func answered(_ id: ExchangeID) {
        inFlight.remove(id)
    }

    /// When the exchange last made progress on its connection (nil while it waits for one),
    /// read on the pool's loop, known on the driver's.
    func lastProgress(slot: Int, serial: UInt32) -> EventLoopFuture<RunInstant?> {
        let side = side
        return carrier.loop.submit { side.value?.pool.lastProgress(slot: slot, serial: serial) }
            .hop(to: driver.eventLoop)
    }

    /// The exchange's deadline passed: the pool closes its connection, or drops it if it waits.
    func abort(slot: Int, serial: UInt32) {
        inFlight.remove(ExchangeID(slot: slot, serial: serial))
        let side = side
        carrier.loop.execute { side.value?.pool.abort(slot: slot, serial: serial) }
    }

    /// A visitor ended: its connections on this pool close, as on the driver's.
    func visitorEnded(_ owners: [ConnectionOwner]) {
        let side = side
        carrier.loop.execute { side.value?.pool.visitorEnded(owners) }
    }

    /// Closes every connection (exchanges still out there are not answered: the driver has
    /// stopped) and lets go of the pool; the future, on the driver's loop, has its figures.
    func close() -> EventLoopFuture<Figures> {
        closed = true
        inFlight.removeAll()
        let side = side
        return carrier.loop.submit { () -> Figures in
            guard let owner = side.value else { return Figures() }
            side.value = nil
            return owner.close()
        }.hop(to: driver.eventLoop)
    }
}

/// The side pool and its owner, on the pool's loop: answers go to the driver's loop.
private final class SideOwner: LiveExchangeOwner {
    let pool: LiveConnectionPool
    private let driver: NIOLoopBound<LoopDriver>
    private(set) var closed = false
    private var health = GeneratorHealth()
    private var probe: Scheduled<Void>?

    private init(pool: LiveConnectionPool, driver: NIOLoopBound<LoopDriver>) {
        self.pool = pool
        self.driver = driver
    }

    /// Every `probeInterval` until `close`: how late did the loop get to it?
    private func scheduleProbe() {
        let clock = pool.clock
        let target = clock.now + GeneratorHealth.probeInterval
        probe = pool.loop.assumeIsolated().scheduleTask(
            in: .nanoseconds(GeneratorHealth.probeInterval.wholeNanoseconds)
        ) {
            [self] in
            guard !closed else { return }
            let now = clock.now
            health.probe(lag: now - target, at: now)
            scheduleProbe()
        }
    }

    static func make(
        carrier: TLSSidePool.Carrier, setup: TLSSidePool.Setup, driver: NIOLoopBound<LoopDriver>
    ) -> SideOwner {
        let factory = NIOConnectionFactory(
            loop: carrier.loop, requiresH2: carrier.requiresH2, protocols: carrier.protocols)
        let pool = LiveConnectionPool(
            connections: factory, endpoints: setup.endpoints, limit: setup.limit,
            connectTimeout: setup.connectTimeout, clock: setup.clock)
        pool.sourceAddresses = setup.sourceAddresses
        let owner = SideOwner(pool: pool, driver: driver)
        // Let go in `close` (the pool holds its owner strongly).
        pool.owner = owner
        owner.scheduleProbe()
        return owner
    }

    /// The driver withdraws an exchange it stopped waiting for by `abort`; until it gets there,
    /// an answer the driver no longer awaits is dropped by its engine.
    func awaits(slot: Int, serial: UInt32) -> Bool { !closed }

    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        at now: RunInstant
    ) {
        exchangeCompleted(slot: slot, serial: serial, result: result, handshake: handshake, spoke: nil, at: now)
    }

    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        spoke: SpokenProtocol?, at now: RunInstant
    ) {
        guard !closed else { return }
        let driver = driver
        driver.eventLoop.execute {
            driver.value.sideExchangeCompleted(
                slot: slot, serial: serial, result: result, handshake: handshake, spoke: spoke)
        }
    }

    func close() -> TLSSidePool.Figures {
        closed = true
        probe?.cancel()
        probe = nil
        pool.closeAll()
        pool.owner = nil
        health.heldIdle = pool.heldIdle
        return TLSSidePool.Figures(connectionsOpened: pool.connectionsOpened, opened: pool.opened, health: health)
    }
}
