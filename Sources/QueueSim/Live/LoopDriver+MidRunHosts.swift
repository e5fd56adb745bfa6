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
            send(order, owner: owner, oneUse: oneUse, askedAt: askedAt, at: now)
        }
    }
}
