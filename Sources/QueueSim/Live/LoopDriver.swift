import NIOCore
import QueueClientCore

/// One event loop's visitors in a wall-clock run: the visitors whose index is `part` modulo
/// `parts`, in a `VisitorEngine` driven by the wall clock through one NIO timer armed for its
/// next event or arrival. Requests go through the loop's own connection pool.
///
/// Loop-confined: every method runs on `loop`. Nothing here locks; rows leave in batches,
/// counters are published a few times a second.
final class LoopDriver: LiveExchangeOwner {
    /// What a driver hands back when it is done.
    struct Outcome: Sendable {
        var requestsPerSecond: PerSecondCounts
        var health: GeneratorHealth
        var connectionsOpened: Int
        /// New connections per second of the run.
        var connectionsPerSecond: PerSecondCounts
        /// The answers its visitors got, by endpoint and status.
        var answers: RequestStatistics
        /// Its visitors' after-pass calls per second (`afterPass`).
        var afterPassPerSecond = PerSecondCounts()
    }

    let loop: any EventLoop
    /// This driver's place among the run's loops (the progress part it publishes).
    let part: Int
    let clock: WallClock
    private let progress: RunProgress
    private let stopLine: LiveStopLine
    let pool: LiveConnectionPool
    let routes: LiveRoutes
    var engine: VisitorEngine
    /// Where hosts no route names are resolved (`+MidRunHosts`); nil: they fail unrouted.
    var midRunHosts: MidRunHosts?
    /// The owners of device visitors' connections to hosts met mid-run, by plan index, to
    /// close when the visitor ends (`LiveRoutes.ownersOfVisitor` knows only the run's own).
    var midRunOwners: [Int: [ConnectionOwner]] = [:]
    /// Where `https` hosts met mid-run are carried when the pool's transport carries no TLS
    /// (queuesim's plain loops): nil, they fail in words.
    var tlsCarrier: TLSSidePool.Carrier?
    /// Their pool, made at the first such exchange (`+MidRunHosts`).
    var tlsSide: TLSSidePool?
    /// Visitors whose arrival has come are waiting for a place under the engine's quota.
    private var backlogFromConcurrency = false
    private var armedAt: RunInstant?
    /// Where finished visitors go (the run's row writer, a batch of this loop's own, with the
    /// run's guardrails in front when it has any).
    private var rows: any FinishedVisitorSink
    private var health = GeneratorHealth()
    private var nextProbe: RunInstant
    private var probesSincePublish = 0
    private(set) var stopped = false
    private var finishedPromise: EventLoopPromise<Outcome>?

    /// - Parameters:
    ///   - input: this loop's own (its group templates fresh: every visitor retains its
    ///     group's box, and two cores retaining one object slow each other down).
    ///   - pacer: the run's `run.maxRequestRate`, shared by every loop.
    init(
        loop: any EventLoop, connections: any ConnectionFactory, part: Int, of parts: Int, input: DriverInput,
        plan: VisitorPlan, quota: Int,
        endpoints: [LiveEndpoint], routes: LiveRoutes, sourceAddresses: [SocketAddress] = [], connectionLimit: Int,
        rows: any FinishedVisitorSink, clock: WallClock, progress: RunProgress, stopLine: LiveStopLine,
        pacer: SharedRequestPacer? = nil
    ) throws {
        self.routes = routes
        self.loop = loop
        self.part = part
        self.clock = clock
        self.progress = progress
        self.stopLine = stopLine
        self.rows = rows
        engine = try VisitorEngine(
            plan: plan, part: part, of: parts, templates: input.templates, quota: quota,
            tracksRequestDeadlines: true, behaviours: input.behaviours, pacer: pacer.map(PacerTurns.shared))
        pool = LiveConnectionPool(
            connections: connections, endpoints: endpoints, limit: connectionLimit,
            connectTimeout: input.longestRequestTimeout, clock: clock)
        pool.sourceAddresses = sourceAddresses
        nextProbe = .origin
    }

    /// Starts the driver; the future completes when its last visitor has a row.
    /// - Parameter warmConnections: connections to open before the first arrival.
    func start(warmConnections: Int = 0) -> EventLoopFuture<Outcome> {
        let promise = loop.makePromise(of: Outcome.self)
        finishedPromise = promise
        // Let go in `complete` or `fail` (the pool holds its owner strongly).
        pool.owner = self
        nextProbe = clock.now + GeneratorHealth.probeInterval
        scheduleProbe()
        pool.warm(warmConnections)
        pump()
        return promise.futureResult
    }

    // MARK: - The engine on the wall clock

    /// Starts due arrivals and fires due events, then arms the timer for what comes next.
    private func pump() {
        guard !stopped else { return }
        do {
            try startDueArrivals()
            while !stopped, let event = engine.takeEvent(dueBy: clock.now) {
                try handle(event)
            }
        } catch {
            fail(error)
            return
        }
        settle()
    }

    /// After any work: arm the timer for the next event or arrival, or finish.
    func settle() {
        guard !stopped else { return }
        let next: RunInstant
        switch engine.nextWake(arrivalsUntil: stopLine.instant) {
        case .done:
            complete()
            return
        case .idle:
            return
        case .at(let instant):
            next = instant
        }
        if let armedAt, armedAt <= next { return }
        armedAt = next
        let delay = next - clock.now
        loop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, delay.wholeNanoseconds))) { [self] in
            if armedAt == next { armedAt = nil }
            pump()
        }
    }

    /// Every `probeInterval`: how late did the loop get to it? Also publishes progress and
    /// hands finished rows to the writer a few times a second.
    private func scheduleProbe() {
        let target = nextProbe
        loop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, (target - clock.now).wholeNanoseconds))) {
            [self] in
            guard !stopped else { return }
            let now = clock.now
            health.probe(lag: now - target, at: now)
            pool.warmStep()
            probesSincePublish += 1
            if probesSincePublish >= 10 {
                probesSincePublish = 0
                publish(at: now)
                do { try rows.flush() } catch {
                    fail(error)
                    return
                }
            }
            nextProbe = now + GeneratorHealth.probeInterval
            scheduleProbe()
        }
    }

    private func publish(at now: RunInstant) {
        var snapshot = engine.progress(at: now)
        snapshot.generatorSaturated = health.isSaturated(at: now)
        snapshot.loopLag = health.loopLag(at: now)
        snapshot.saturatedSeconds = health.saturatedSeconds
        progress.publish(snapshot, part: part)
    }

    // MARK: - Events into the engine

    /// Starts every visitor whose arrival has come, while there is a place under the loop's
    /// share of `run.concurrency`.
    ///
    /// `eventInstant`: the instant of the event that called, read moments before; it stands
    /// for the first look at the clock. An arrival due at the last reading is due now (time
    /// only moves on), so finding no place for it needs no new reading. Two clock reads per
    /// keep-alive request fewer (`bench/live-ceiling.sh`), the same decisions.
    private func startDueArrivals(eventInstant: RunInstant? = nil) throws {
        var unusedEventInstant = eventInstant
        var lastReading = eventInstant
        while let arrival = engine.nextArrivalInstant() {
            if let last = lastReading, arrival <= last, !engine.hasPlace {
                backlogFromConcurrency = true
                return
            }
            let now: RunInstant
            if let event = unusedEventInstant.take(), arrival <= event {
                now = event
            } else {
                now = clock.now
            }
            lastReading = now
            guard arrival <= now else {
                backlogFromConcurrency = false
                return
            }
            guard engine.hasPlace else {
                backlogFromConcurrency = true
                return
            }
            // The run has been told to stop at an instant this arrival is after: it never
            // arrives, even if this loop hears of the stop a moment later.
            guard arrival <= stopLine.instant else { return }
            // While a backlog built by the cap lasts, lateness is the cap's (its `start_ms` shows
            // it), not the generator's.
            if backlogFromConcurrency {
                health.startedAfterConcurrencyWait()
            } else {
                health.started(lag: now - arrival, at: now)
            }
            try carryOut(engine.startNextArrival(at: now), at: now)
        }
    }

    private func handle(_ event: EngineEvent) throws {
        let now = clock.now
        switch event {
        case .wake(let slot, _):
            try carryOut(engine.wake(slot: slot, at: now), at: now)
        case .deadline(let slot, let serial):
            if let tlsSide, tlsSide.hasOutstanding(slot: slot, serial: serial) {
                return deadlineOnSide(tlsSide, slot: slot, serial: serial)
            }
            // The engine decides by the request's timeout kind; the pool knows when its
            // connection last moved.
            let verdict = engine.deadlineFired(slot: slot, serial: serial, at: now) {
                pool.lastProgress(slot: slot, serial: serial)
            }
            guard verdict == .expired else { return }
            pool.abort(slot: slot, serial: serial)
            try carryOut(engine.failed(.timedOut, slot: slot, serial: serial, at: now), at: now)
        case .response(let slot, let response):
            // The wall clock's answers come from the pool, not the calendar; kept total.
            try carryOut(engine.received(response, slot: slot, serial: 0, at: now), at: now)
        case .failure(let slot, let error):
            try carryOut(engine.failed(error, slot: slot, serial: 0, at: now), at: now)
        case .giveUp, .resume:
            try carryOut(engine.behaviourEvent(event, at: now), at: now)
        }
    }

    /// Whether the visitor in `slot` still awaits the answer to request `serial`.
    func awaits(slot: Int, serial: UInt32) -> Bool {
        engine.awaits(slot: slot, serial: serial)
    }

    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        at now: RunInstant
    ) {
        exchangeCompleted(slot: slot, serial: serial, result: result, handshake: handshake, spoke: nil, at: now)
    }

    /// The pool's answer (or failure) to request `serial` of the visitor in `slot`; `spoke`:
    /// the HTTP version the answer came in (the visitor's row says it).
    func exchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        spoke: SpokenProtocol?, at now: RunInstant
    ) {
        guard !stopped else { return }
        do {
            switch result {
            case .success(let response):
                try carryOut(
                    engine.received(response, slot: slot, serial: serial, at: now, handshake: handshake, spoke: spoke),
                    at: now)
            case .failure(let error):
                try carryOut(engine.failed(error, slot: slot, serial: serial, at: now, handshake: handshake), at: now)
            }
            try startDueArrivals(eventInstant: now)
        } catch {
            fail(error)
            return
        }
        settle()
    }

    /// Carries out what the engine asked for: a request into the pool (now, or at the turn the
    /// engine gave it), a row into the batch.
    /// `now`: the instant the engine was given (the event's; the clock is read once per event,
    /// where it was read three times per request: 1 % of a keep-alive request's CPU).
    private func carryOut(_ action: VisitorEngine.Action, at now: RunInstant) throws {
        switch action {
        case .none:
            return
        case .send(let order):
            transmit(order, askedAt: now, at: now)
        case .sendLater(let paced):
            loop.assumeIsolated().scheduleTask(in: .nanoseconds((paced.leaves - now).wholeNanoseconds)) { [self] in
                guard !stopped else { return }
                let now = clock.now
                guard let order = engine.turnCame(paced, at: now) else { return }
                transmit(order, askedAt: paced.askedAt, at: now)
            }
        case .finished(let visitor):
            var owners = routes.ownersOfVisitor(visitor.index, group: visitor.groupIndex)
            if !midRunOwners.isEmpty, let more = midRunOwners.removeValue(forKey: visitor.index) {
                owners += more
                tlsSide?.visitorEnded(more)
            }
            pool.visitorEnded(owners)
            try rows.accept(visitor)
        }
    }

    /// Sends a request at `now`; `askedAt`: when its visitor sent it (its timeout runs from then).
    private func transmit(_ order: VisitorEngine.RequestOrder, askedAt: RunInstant, at now: RunInstant) {
        guard
            let (owner, oneUse) = routes.owner(
                visitor: order.visitor.index, group: order.visitor.groupIndex, kind: order.kind,
                authority: order.request.head.authority, platform: order.visitor.platform)
        else {
            sendToHostMetMidRun(order, askedAt: askedAt, at: now)
            return
        }
        send(order, owner: owner, oneUse: oneUse, askedAt: askedAt, at: now)
    }

    /// Hands the request to the pool on `owner`'s connections.
    func send(
        _ order: VisitorEngine.RequestOrder, owner: ConnectionOwner, oneUse: Bool, askedAt: RunInstant,
        at now: RunInstant
    ) {
        let exchange = LiveExchange(
            slot: order.slot, serial: order.serial, request: order.request, owner: owner, oneUse: oneUse)
        exchange.connectTimeout = order.timeout.firstDeadline(sentAt: askedAt) - now
        exchange.idleLifetime = IdleLifetime(owner: owner, platform: order.visitor.platform, oneUse: oneUse)
        exchange.platform = order.visitor.platform
        pool.send(exchange, at: now)
    }

    // MARK: - The end

    /// Ends every visitor in flight at `instant`, gives a row to every visitor whose arrival
    /// had come but who never started (`VisitorEngine.stop`), and closes the pool.
    func stop(reason: StopReason, at instant: RunInstant) {
        guard !stopped, finishedPromise != nil else { return }
        do {
            try engine.stop(at: instant, reason: reason, dueArrivals: true) { try rows.accept($0) }
        } catch {
            fail(error)
            return
        }
        complete()
    }

    /// Abandons the driver (another loop's failed): no more rows.
    func abandon(_ error: any Error) {
        fail(error)
    }

    private func complete() {
        guard let promise = finishedPromise else { return }
        finishedPromise = nil
        stopped = true
        pool.closeAll()
        health.heldIdle = pool.heldIdle
        pool.owner = nil
        do {
            try rows.flush()
        } catch {
            promise.fail(error)
            return
        }
        publish(at: clock.now)
        var outcome = Outcome(
            requestsPerSecond: engine.sent.perSecond, health: health, connectionsOpened: pool.connectionsOpened,
            connectionsPerSecond: pool.opened, answers: engine.sent.answers,
            afterPassPerSecond: engine.sent.afterPassPerSecond)
        guard let tlsSide = tlsSide.take() else { return promise.succeed(outcome) }
        // Once its connections are closed: the run's loops may shut down after this.
        tlsSide.close().assumeIsolated().whenComplete { result in
            if case .success(let figures) = result { outcome.add(figures) }
            promise.succeed(outcome)
        }
    }

    private func fail(_ error: any Error) {
        guard let promise = finishedPromise else { return }
        finishedPromise = nil
        stopped = true
        pool.closeAll()
        pool.owner = nil
        guard let tlsSide = tlsSide.take() else { return promise.fail(error) }
        tlsSide.close().assumeIsolated().whenComplete { _ in promise.fail(error) }
    }
}
