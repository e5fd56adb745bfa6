import DequeModule
import QueueClientCore

/// The events the pool's owner (a loop driver, a probe) brings: a request, an abort, a
/// visitor's end, a warm-up, the pool's close.
extension ConnectionPoolStateMachine {
    /// A request to send: on an idle connection of its owner, or after its owner's waiters.
    mutating func requestQueued(_ exchange: LiveExchange) -> Action {
        var action = Action.none
        let owner = exchange.owner
        var queue = takeQueue(owner) ?? OwnerQueue()
        if !exchange.oneUse, let id = queue.idle.popLast() {
            connections[id.index].state = .busy(exchange)
            action.execute = Execution(exchange: exchange, connection: id)
        } else {
            queue.waiting.append(exchange)
            waitingTotal += 1
            openIfWanted(owner, &queue, &action)
        }
        store(queue, for: owner)
        return action
    }

    /// The owner gave up on the exchange (its deadline passed): a busy connection is closed,
    /// since its answer could still arrive and must not be read as the next one's; a waiter
    /// is dropped when it comes up. Nothing is delivered.
    mutating func abortExchange(_ id: ExchangeID) -> Action {
        if let connection = connection(carrying: id) {
            connections[connection.index].state = .closing
            return Action(close: connection)
        }
        if waitingTotal > 0 { abortedWaiters.insert(id) }
        return .none
    }

    /// The visitor behind `owners` has ended: its idle connections close (a phone's app is
    /// done with them). A connect still in progress is closed when it completes, since nobody
    /// waits for it. Connections `held` for nobody (Android's abandoned enqueue clients') are
    /// not the visitor's any more: they stay until the server closes them or their bound passes.
    mutating func visitorEnded(_ owners: [ConnectionOwner]) -> [ConnectionID] {
        var closing: [ConnectionID] = []
        for owner in owners {
            guard var queue = takeQueue(owner) else { continue }
            for id in queue.idle {
                connections[id.index].state = .closing
                closing.append(id)
            }
            queue.idle.removeAll()
            store(queue, for: owner)
        }
        return closing
    }

    /// Opens up to `count` shared connections ahead of need, within the limit: `warmBatch`
    /// now and as many at every `warmStep`.
    mutating func warm(_ count: Int, for owner: ConnectionOwner = .shared) -> Action {
        warmRemaining = count
        warmOwner = owner
        return warmStep()
    }

    mutating func warmStep() -> Action {
        guard warmRemaining > 0 else { return .none }
        let batch = max(0, min(warmRemaining, Self.warmBatch, limit - counted))
        warmRemaining = batch == 0 ? 0 : warmRemaining - batch
        var action = Action.none
        guard batch > 0 else { return action }
        var queue = takeQueue(warmOwner) ?? OwnerQueue()
        for _ in 0..<batch {
            let id = startConnect(for: warmOwner, &queue)
            connections[id.index].warmed = true
            action.connect.append(id)
        }
        store(queue, for: warmOwner)
        return action
    }

    /// Closes every connection, `held` ones too, and fails every exchange (their owner is done
    /// with them): the run's end.
    mutating func closeAll() -> CloseAllAction {
        var action = CloseAllAction()
        for queue in Array(queues.values) + sharedQueues.compactMap({ $0 }) {
            for exchange in queue.waiting
            where abortedWaiters.isEmpty || abortedWaiters.remove(exchange.id) == nil {
                action.fail.append(exchange)
            }
        }
        queues.removeAll()
        sharedQueues.removeAll()
        starved.removeAll()
        abortedWaiters.removeAll()
        waitingTotal = 0
        warmRemaining = 0
        held = 0
        idleCalendar.removeAll()
        for index in connections.indices {
            let id = ConnectionID(index: index, generation: connections[index].generation)
            switch connections[index].state {
            case .free, .closing, .released:
                continue
            case .connecting:
                // Closed once the connect completes.
                connections[index].state = .closing
            case .idle, .held:
                connections[index].state = .closing
                action.close.append(id)
            case .busy(let exchange):
                connections[index].state = .closing
                action.close.append(id)
                action.fail.append(exchange)
            }
        }
        return action
    }
}
