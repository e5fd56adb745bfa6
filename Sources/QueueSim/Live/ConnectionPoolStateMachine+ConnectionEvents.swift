import DequeModule
import QueueClientCore

/// The events a connection brings: established, failed to connect, answered, withdrawn, closed.
extension ConnectionPoolStateMachine {
    mutating func connectionEstablished(_ id: ConnectionID) -> Action {
        guard isCurrent(id), connections[id.index].connectPending else { return .none }
        connections[id.index].connectPending = false
        if case .closing = connections[id.index].state {
            // Closed with the pool while it connected: close it, and leave the owner's queue
            // (gone with the pool) alone rather than storing one with a negative count.
            var action = Action.none
            action.close = id
            return action
        }
        let owner = connections[id.index].owner
        var queue = takeQueue(owner) ?? OwnerQueue()
        queue.connecting -= 1
        var action = Action.none
        switch connections[id.index].state {
        case .connecting:
            hand(id, from: &queue, &action, closeIfUnwanted: owner.isVisitor)
        case .closing, .free, .idle, .busy, .held, .released:
            break
        }
        store(queue, for: owner)
        return action
    }

    /// The connect failed (refused, timed out): the owner's oldest waiter fails with `error`.
    mutating func connectFailed(_ id: ConnectionID, error: TransportError) -> Action {
        guard isCurrent(id), connections[id.index].connectPending else { return .none }
        if case .closing = connections[id.index].state {
            // Closed with the pool while it connected (`closeAll`): its owner's queue is gone
            // and nothing waits on it. Counting it against a new, empty queue made the queue's
            // `connecting` negative, which asked for another connection; on a loop shutting
            // down that connect failed at once, for ever (a livelock found by
            // TransportBehaviourTests.closedWhileConnecting).
            release(id.index)
            return .none
        }
        let owner = connections[id.index].owner
        var queue = takeQueue(owner) ?? OwnerQueue()
        queue.connecting -= 1
        release(id.index)
        var action = Action.none
        if let first = popWaiter(&queue) { action.complete = .failed(first.id, error) }
        openIfWanted(owner, &queue, &action)
        store(queue, for: owner)
        serveStarved(&action)
        return action
    }

    /// The answer to the connection's exchange was read at `now` (nil: the latest instant an
    /// event brought). `reusable`: the answer keeps the connection open. A `oneUse` exchange's
    /// connection carries nothing more: it closes, or, abandoned as Android's is, is `held`
    /// open for nobody.
    mutating func exchangeSucceeded(on id: ConnectionID, reusable: Bool, at now: RunInstant? = nil) -> Action {
        guard isCurrent(id), case .busy(let exchange) = connections[id.index].state else { return .none }
        learn(now)
        connections[id.index].served += 1
        var action = Action(complete: .succeeded(exchange.id))
        if reusable && !exchange.oneUse {
            let owner = connections[id.index].owner
            var queue = takeQueue(owner) ?? OwnerQueue()
            hand(id, from: &queue, &action, lifetime: exchange.idleLifetime)
            store(queue, for: owner)
        } else if reusable, case .abandonedAfterUse = exchange.idleLifetime {
            hold(id, lifetime: exchange.idleLifetime)
        } else {
            connections[id.index].state = .released
            counted -= 1
            action.close = id
            serveStarved(&action)
        }
        return action
    }

    /// The owner no longer awaited the exchange when it came to be written (it was never
    /// sent): the connection goes to the owner's next waiter, or idles.
    mutating func exchangeWithdrawn(on id: ConnectionID) -> Action {
        guard isCurrent(id), case .busy(let exchange) = connections[id.index].state else { return .none }
        let owner = connections[id.index].owner
        var queue = takeQueue(owner) ?? OwnerQueue()
        var action = Action.none
        hand(id, from: &queue, &action, lifetime: exchange.idleLifetime)
        store(queue, for: owner)
        return action
    }

    /// The connection's channel is gone (closed by either side, or failed with `error`).
    /// `receivedResponseBytes`: some of an answer had arrived. `unprocessed`: the server said
    /// it did not process the request in flight (h2's `REFUSED_STREAM`, or a GOAWAY below its
    /// stream, RFC 9113 §8.7).
    mutating func connectionClosed(
        _ id: ConnectionID, error: TransportError, receivedResponseBytes: Bool, unprocessed: Bool = false
    ) -> Action {
        guard isCurrent(id), !connections[id.index].connectPending else { return .none }
        var action = Action.none
        let connection = connections[id.index]
        switch connection.state {
        case .free, .connecting:
            return .none
        case .busy(let exchange):
            var queue = takeQueue(connection.owner) ?? OwnerQueue()
            release(id.index)
            // A server may close an idle keep-alive connection just as a request goes out on
            // it. Browsers and HTTP stacks resend such a request once on a new connection; so
            // does the pool, so the visitor does not pay an SDK retry for the transport's race.
            // A request an h2 server did not process is sent again once the same way (OkHttp's
            // silent retry of a refused stream), even on the connection's first exchange.
            if (connection.served > 0 || unprocessed) && !receivedResponseBytes && !exchange.resent {
                exchange.resent = true
                queue.waiting.prepend(exchange)
                waitingTotal += 1
                openIfWanted(connection.owner, &queue, &action)
            } else {
                action.complete = .failed(exchange.id, error)
            }
            store(queue, for: connection.owner)
        case .idle:
            if var queue = takeQueue(connection.owner) {
                if let position = queue.idle.lastIndex(of: id) { queue.idle.remove(at: position) }
                store(queue, for: connection.owner)
            }
            release(id.index)
        case .held:
            // The server closed an abandoned connection (its idle timeout, most often).
            held -= 1
            release(id.index)
        case .closing:
            release(id.index)
        case .released:
            // Already uncounted when its last answer came.
            connections[id.index].state = .free
            connections[id.index].generation &+= 1
            freeSlots.append(id.index)
            return .none
        }
        serveStarved(&action)
        return action
    }
}
