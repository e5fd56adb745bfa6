import DequeModule
import QueueClientCore

/// The decisions every event shares: who gets a free connection, when to open one, the
/// owners' queues and the slots' bookkeeping.
extension ConnectionPoolStateMachine {
    /// A connection free for its owner: to the owner's oldest waiter that may ride it, else
    /// idle for as long as `lifetime` allows. `closeIfUnwanted`: a visitor's new connection whose request went away while it
    /// connected is closed instead (a phone opens none ahead of need).
    mutating func hand(
        _ id: ConnectionID, from queue: inout OwnerQueue, _ action: inout Action, closeIfUnwanted: Bool = false,
        lifetime: IdleLifetime = .whileVisitorLasts
    ) {
        let fresh = connections[id.index].served == 0
        if let first = peekWaiter(&queue), fresh || !first.oneUse {
            queue.waiting.removeFirst()
            waitingTotal -= 1
            connections[id.index].state = .busy(first)
            action.execute = Execution(
                exchange: first, connection: id, freshConnection: fresh && !connections[id.index].warmed)
        } else if closeIfUnwanted {
            connections[id.index].state = .closing
            action.close = id
        } else {
            connections[id.index].state = .idle
            queue.idle.append(id)
            beginIdleSpell(id, lifetime: lifetime)
        }
    }

    /// The owner's oldest waiter not aborted, left at the head of its queue.
    mutating func peekWaiter(_ queue: inout OwnerQueue) -> LiveExchange? {
        while let first = queue.waiting.first {
            guard !abortedWaiters.isEmpty, abortedWaiters.remove(first.id) != nil else { return first }
            queue.waiting.removeFirst()
            waitingTotal -= 1
        }
        if waitingTotal == 0 { abortedWaiters.removeAll() }
        return nil
    }

    mutating func popWaiter(_ queue: inout OwnerQueue) -> LiveExchange? {
        guard let first = peekWaiter(&queue) else { return nil }
        queue.waiting.removeFirst()
        waitingTotal -= 1
        return first
    }

    /// Opens a connection for each of the owner's waiters no connect in progress will serve,
    /// within the limit; beyond it the owner waits its turn.
    mutating func openIfWanted(_ owner: ConnectionOwner, _ queue: inout OwnerQueue, _ action: inout Action) {
        while queue.waiting.count > queue.connecting {
            guard counted < limit else {
                if !queue.starved {
                    queue.starved = true
                    starved.append(owner)
                }
                return
            }
            action.connect.append(startConnect(for: owner, &queue))
        }
    }

    /// Places freed under the limit go to the owners that waited for one, in turn.
    mutating func serveStarved(_ action: inout Action) {
        while counted < limit, let owner = starved.popFirst() {
            guard var queue = takeQueue(owner) else { continue }
            queue.starved = false
            openIfWanted(owner, &queue, &action)
            store(queue, for: owner)
        }
    }

    mutating func startConnect(for owner: ConnectionOwner, _ queue: inout OwnerQueue) -> ConnectionID {
        counted += 1
        queue.connecting += 1
        connectionsOpened += 1
        let index: Int
        if let reused = freeSlots.popLast() {
            index = reused
        } else {
            index = connections.count
            connections.append(Connection(generation: 0, state: .free, owner: owner))
        }
        connections[index].state = .connecting
        connections[index].owner = owner
        connections[index].served = 0
        connections[index].connectPending = true
        connections[index].warmed = false
        return ConnectionID(index: index, generation: connections[index].generation)
    }

    /// Keeps an owner's queue while it holds anything; a visitor's empty queue goes, so the
    /// table holds the visitors with connections, not every visitor ever seen.
    mutating func store(_ queue: consuming OwnerQueue, for owner: ConnectionOwner) {
        if let index = Self.sharedIndex(owner) {
            if index >= sharedQueues.count {
                sharedQueues.append(contentsOf: repeatElement(nil, count: index + 1 - sharedQueues.count))
            }
            // Kept when unused too (one per endpoint): dropped, its idle list's storage went
            // with it, and the next answer allocated a new one (a `shared` connection goes
            // idle and busy again for every request).
            sharedQueues[index] = queue
        } else if !queue.isUnused {
            queues[owner] = queue
        }
    }

    /// The owner's queue, moved out (its waiters are not copied); `store` puts it back.
    mutating func takeQueue(_ owner: ConnectionOwner) -> OwnerQueue? {
        guard let index = Self.sharedIndex(owner) else { return queues.removeValue(forKey: owner) }
        return index < sharedQueues.count ? sharedQueues[index].take() : nil
    }

    /// Where a shared owner's queue is in `sharedQueues`; nil for a visitor's.
    static func sharedIndex(_ owner: ConnectionOwner) -> Int? {
        owner.visitor < 0 && owner.role == .shared ? Int(owner.endpoint) : nil
    }

    /// Frees a counted connection's slot; a later event naming it is stale and ignored.
    mutating func release(_ index: Int) {
        counted -= 1
        connections[index].state = .free
        connections[index].generation &+= 1
        freeSlots.append(index)
    }

    func isCurrent(_ id: ConnectionID) -> Bool {
        guard id.index < connections.count, connections[id.index].generation == id.generation else { return false }
        if case .free = connections[id.index].state { return false }
        return true
    }

    /// Whether connection `id` is still being connected for its owner: not closed with the pool
    /// or its visitor meanwhile (a failed connect may then go on to another address).
    func isStillConnecting(_ id: ConnectionID) -> Bool {
        guard isCurrent(id), connections[id.index].connectPending else { return false }
        if case .closing = connections[id.index].state { return false }
        return true
    }
}
