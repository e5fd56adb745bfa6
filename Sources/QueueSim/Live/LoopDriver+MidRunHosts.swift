import NIOCore
import QueueClientCore

/// Requests to hosts no route of the run names (an off-host redirect, a queue URL on another
/// domain): resolved as a phone resolves them (`MidRunHosts`), then sent to the endpoint made
/// for the host, or failed as a phone fails a host that does not resolve.
extension LoopDriver {
    /// A request whose host no route names: to its host's endpoint, at once when the host is
    /// known, else once its lookup is over; the wait counts against the request's timeout.
    func sendToHostMetMidRun(_ order: VisitorEngine.RequestOrder, askedAt: RunInstant, at now: RunInstant) {
        let authority = order.request.head.authority ?? ""
        guard let midRunHosts, let origin = MidRunHosts.Origin(scheme: order.request.head.scheme, authority: authority)
        else {
            failLater(order, LiveRoutes.unroutedError(authority: authority))
            return
        }
        let waiting = NIOLoopBound((driver: self, order: order, askedAt: askedAt), eventLoop: loop)
        let known = midRunHosts.endpoint(for: origin, on: loop) { answer in
            let (driver, order, askedAt) = waiting.value
            driver.hostAnswered(answer, order: order, askedAt: askedAt, at: driver.clock.now)
        }
        switch known {
        case nil:
            return
        case .failed(let error):
            failLater(order, error)
        case .endpoint(let index):
            hostAnswered(.endpoint(index), order: order, askedAt: askedAt, at: now)
        }
    }

    /// A failure reaches the engine a turn later (as a connect failure reaches the driver),
    /// never inside the action that sent the request.
    private func failLater(_ order: VisitorEngine.RequestOrder, _ error: TransportError) {
        let (slot, serial) = (order.slot, order.serial)
        loop.assumeIsolated().execute { [self] in
            exchangeCompleted(slot: slot, serial: serial, result: .failure(error), handshake: nil, at: clock.now)
        }
    }

    /// Sends `order` to the endpoint its host got, or fails it; nothing when its visitor no
    /// longer waits for it (its timeout came first, or the run stopped).
    private func hostAnswered(
        _ answer: MidRunHosts.Answer, order: VisitorEngine.RequestOrder, askedAt: RunInstant, at now: RunInstant
    ) {
        guard !stopped, engine.awaits(slot: order.slot, serial: order.serial) else { return }
        switch answer {
        case .failed(let error):
            exchangeCompleted(slot: order.slot, serial: order.serial, result: .failure(error), handshake: nil, at: now)
        case .endpoint(let index):
            if let midRunHosts, Int(index) >= pool.endpoints.count {
                pool.addEndpoints(midRunHosts.endpoints(from: pool.endpoints.count, through: Int(index)))
            }
            let (owner, oneUse) = routes.owner(
                visitor: order.visitor.index, group: order.visitor.groupIndex, kind: order.kind, endpoint: index,
                platform: order.visitor.platform)
            if owner.isVisitor {
                let visitor = order.visitor.index
                if midRunOwners[visitor]?.contains(owner) != true { midRunOwners[visitor, default: []].append(owner) }
            }
            guard pool.carries(endpoint: Int(index)) else {
                return sendOnSide(order, owner: owner, oneUse: oneUse, askedAt: askedAt, at: now)
            }
            send(order, owner: owner, oneUse: oneUse, askedAt: askedAt, at: now)
        }
    }

    // MARK: - https met mid-run on the plain transport

    /// Sends `order` to the side pool that carries TLS for this loop (`TLSSidePool`), made now
    /// if it is the first; fails it in words when the run has none.
    private func sendOnSide(
        _ order: VisitorEngine.RequestOrder, owner: ConnectionOwner, oneUse: Bool, askedAt: RunInstant,
        at now: RunInstant
    ) {
        guard let side = tlsSide ?? makeTLSSide() else {
            let host = HostRoute.hostPart(of: order.request.head.authority ?? "")
            return failLater(order, MidRunHosts.plainTransportError(host))
        }
        side.send(
            TLSSidePool.Order(
                slot: order.slot, serial: order.serial, request: order.request, owner: owner, oneUse: oneUse,
                connectTimeout: order.timeout.firstDeadline(sentAt: askedAt) - now,
                idleLifetime: IdleLifetime(owner: owner, platform: order.visitor.platform, oneUse: oneUse),
                platform: order.visitor.platform))
    }

    private func makeTLSSide() -> TLSSidePool? {
        guard let tlsCarrier, let midRunHosts else { return nil }
        let side = TLSSidePool(
            carrier: tlsCarrier,
            setup: TLSSidePool.Setup(
                endpoints: pool.endpoints, limit: pool.limit, connectTimeout: pool.defaultConnectTimeout, clock: clock,
                sourceAddresses: pool.sourceAddresses, midRunHosts: midRunHosts),
            driver: self)
        tlsSide = side
        return side
    }

    /// The side pool's answer to request `serial` of `slot`. Its instant is this loop's reading
    /// of the clock, not the other loop's: the engine's instants only move on.
    func sideExchangeCompleted(
        slot: Int, serial: UInt32, result: Result<IncomingResponse, TransportError>, handshake: Handshake?,
        spoke: SpokenProtocol?
    ) {
        guard let tlsSide, tlsSide.hasOutstanding(slot: slot, serial: serial) else { return }
        tlsSide.answered(ExchangeID(slot: slot, serial: serial))
        exchangeCompleted(slot: slot, serial: serial, result: result, handshake: handshake, spoke: spoke, at: clock.now)
    }

    /// A side exchange's deadline: the engine decides by when it last made progress, read on
    /// the side pool's loop; an expired one is aborted there and fails here.
    func deadlineOnSide(_ side: TLSSidePool, slot: Int, serial: UInt32) {
        side.lastProgress(slot: slot, serial: serial).assumeIsolated().whenSuccess { [self] progress in
            guard !stopped, tlsSide === side, side.hasOutstanding(slot: slot, serial: serial) else { return }
            let verdict = engine.deadlineFired(slot: slot, serial: serial, at: clock.now) { progress }
            guard verdict == .expired else { return settle() }
            side.abort(slot: slot, serial: serial)
            exchangeCompleted(slot: slot, serial: serial, result: .failure(.timedOut), handshake: nil, at: clock.now)
        }
    }
}

extension LoopDriver.Outcome {
    /// Adds the side pool's connections and its loop's lag to the driver's.
    mutating func add(_ side: TLSSidePool.Figures) {
        connectionsOpened += side.connectionsOpened
        for (second, count) in side.opened.nonZero { connectionsPerSecond.add(at: second, count) }
        health.merge(side.health)
    }
}
