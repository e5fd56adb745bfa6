import DequeModule
import QueueClientCore

/// The decisions of one loop's connection pool (`LiveConnectionPool`), with no channel, no
/// I/O and no clock: events in (a request queued, a connection established or closed, an
/// answer read, the owner's abort, a visitor's end), actions out (connect, send an exchange
/// on a connection, complete or fail an exchange, close connections). The pool performs the
/// actions with NIO.
///
/// Every exchange and connection has a `ConnectionOwner`, and a connection carries only its
/// owner's exchanges. That one rule gives both connection models (`client.connections`):
/// - `shared`: every visitor's exchanges to an endpoint have one owner, so the loop's
///   keep-alive connections serve any visitor, first come first served;
/// - `device`: each visitor owns its connections per role (its enqueue calls, its WebView),
///   as a phone does. Nothing is opened before it asks, a connection nobody waits for when it
///   is made is closed, an exchange marked `oneUse` (Android's enqueue: a new `OkHttpClient`
///   per call) gets a connection of its own that closes after its answer, and
///   `visitorEnded` closes what the visitor still holds.
///
/// At most `limit` connections are open, connecting and closing ones included; an owner that
/// wants one beyond it waits its turn (`starved`), first come first served.
/// - A connection that cannot be made fails its owner's oldest waiter, as the SDKs' HTTP
///   stacks report a refused connection at once; the client core's backoff decides what next.
/// - A request whose keep-alive connection closes before any byte of its answer came back is
///   sent again once, on another connection (the server's idle close raced it).
struct ConnectionPoolStateMachine {
    /// An exchange to write on a connection the machine has just made busy with it.
    struct Execution: Equatable {
        var exchange: LiveExchange
        var connection: ConnectionID
        /// The first exchange of a connection opened for it (not ahead of need): the
        /// connection's handshakes are this exchange's.
        var freshConnection = false
    }

    /// How an exchange ends for its owner, who knows it by its id: the exchange itself (its
    /// request) is done with here, not handed on (a copy per answer the pool had no use for).
    enum Completion: Equatable {
        /// The answer was read (the pool holds it).
        case succeeded(ExchangeID)
        case failed(ExchangeID, TransportError)
    }

    /// What to do after an event, in this order: close, connect, execute, complete. An event
    /// frees at most one connection, so at most one exchange starts per event.
    struct Action: Equatable {
        var close: ConnectionID?
        var connect: [ConnectionID] = []
        var execute: Execution?
        var complete: Completion?

        static var none: Action { Action() }
    }

    /// What `closeAll` asks for: every connection closed, every exchange failed.
    struct CloseAllAction: Equatable {
        var close: [ConnectionID] = []
        var fail: [LiveExchange] = []
    }

    private enum State {
        /// A slot with no connection: its index is free for the next one.
        case free
        case connecting
        case idle
        /// A reference: a device run has a slot for every connection its waiting visitors hold,
        /// idle for most of the wait, so a slot stays a word or two.
        case busy(LiveExchange)
        /// Asked to close (aborted, closed with the pool, closed while connecting, not wanted):
        /// it counts against the limit until its channel is gone.
        case closing
        /// Done with after an answer that ends the connection: it no longer counts, and its
        /// channel closes on its own.
        case released
    }

    private struct Connection {
        var generation: UInt32
        var state: State
        var owner: ConnectionOwner
        /// Exchanges it has answered (0: fresh, so a close cannot be a stale keep-alive).
        var served = 0
        /// Its connect attempt has not completed yet.
        var connectPending = false
        /// Opened ahead of need (`warm`): its handshakes belong to no visitor's request.
        var warmed = false
    }

    /// One owner's waiters, idle connections and connects in progress.
    private struct OwnerQueue {
        var waiting = Deque<LiveExchange>()
        /// The most recently used last (it is the likeliest still open).
        var idle: [ConnectionID] = []
        var connecting = 0
        /// Listed in `starved`: it wants a connection the limit does not allow yet.
        var starved = false

        var isUnused: Bool { waiting.isEmpty && idle.isEmpty && connecting == 0 && !starved }
    }

    let limit: Int
    private var connections: [Connection] = []
    private var freeSlots: [Int] = []
    /// The visitors' queues (`device`), while they hold anything.
    private var queues: [ConnectionOwner: OwnerQueue] = [:]
    /// The shared owners' queues, by endpoint: every event of a `shared` run takes and stores
    /// its owner's queue, and hashing the owner for a dictionary was ~2 % of a keep-alive
    /// request's CPU (`bench/live-ceiling.sh`).
    private var sharedQueues: [OwnerQueue?] = []
    /// Owners waiting for a place under the limit, in the order they first wanted one.
    private var starved = Deque<ConnectionOwner>()
    /// Waiters aborted by their owner, dropped when they reach the head of their queue (an
    /// abort does not search the queue: a saturated pool holds thousands).
    private var abortedWaiters: Set<ExchangeID> = []
    private var waitingTotal = 0
    /// Connections against the limit: connecting, idle, busy and closing.
    private var counted = 0
    private var warmRemaining = 0
    private var warmOwner = ConnectionOwner.shared
    /// Connections opened so far (a test counts them: keep-alive reuses).
    private(set) var connectionsOpened = 0

    /// Connections warmed per `warmStep`, so the first arrivals do not wait behind hundreds
    /// of connects.
    static let warmBatch = 32

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waiters in the queues (aborted ones included until they come up).
    var waitingCount: Int { waitingTotal }
    /// Connections counted against the limit.
    var openCount: Int { counted }

    // MARK: - Events from the owner

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
    /// waits for it.
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

    /// Closes every connection and fails every exchange (their owner is done with them).
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
        for index in connections.indices {
            let id = ConnectionID(index: index, generation: connections[index].generation)
            switch connections[index].state {
            case .free, .closing, .released:
                continue
            case .connecting:
                // Closed once the connect completes.
                connections[index].state = .closing
            case .idle:
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

    // MARK: - Events from connections

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
        case .closing, .free, .idle, .busy, .released:
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

    /// The answer to the connection's exchange was read. `reusable`: the answer keeps the
    /// connection open (and the exchange did not want it for itself alone).
    mutating func exchangeSucceeded(on id: ConnectionID, reusable: Bool) -> Action {
        guard isCurrent(id), case .busy(let exchange) = connections[id.index].state else { return .none }
        connections[id.index].served += 1
        var action = Action(complete: .succeeded(exchange.id))
        if reusable && !exchange.oneUse {
            let owner = connections[id.index].owner
            var queue = takeQueue(owner) ?? OwnerQueue()
            hand(id, from: &queue, &action)
            store(queue, for: owner)
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
        guard isCurrent(id), case .busy = connections[id.index].state else { return .none }
        let owner = connections[id.index].owner
        var queue = takeQueue(owner) ?? OwnerQueue()
        var action = Action.none
        hand(id, from: &queue, &action)
        store(queue, for: owner)
        return action
    }

    /// The connection's channel is gone (closed by either side, or failed with `error`).
    /// `receivedResponseBytes`: some of an answer had arrived.
    mutating func connectionClosed(
        _ id: ConnectionID, error: TransportError, receivedResponseBytes: Bool
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
            if connection.served > 0 && !receivedResponseBytes && !exchange.resent {
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

    // MARK: - Queries

    /// The connection carrying exchange `id`, if it is in flight.
    func connection(carrying id: ExchangeID) -> ConnectionID? {
        for index in connections.indices {
            guard case .busy(let exchange) = connections[index].state, exchange.id == id else { continue }
            return ConnectionID(index: index, generation: connections[index].generation)
        }
        return nil
    }

    /// Whose connection `id` is (which endpoint it goes to, which visitor it belongs to).
    func owner(of id: ConnectionID) -> ConnectionOwner {
        connections[id.index].owner
    }

    // MARK: - Decisions

    /// A connection free for its owner: to the owner's oldest waiter that may ride it, else
    /// idle. `closeIfUnwanted`: a visitor's new connection whose request went away while it
    /// connected is closed instead (a phone opens none ahead of need).
    private mutating func hand(
        _ id: ConnectionID, from queue: inout OwnerQueue, _ action: inout Action, closeIfUnwanted: Bool = false
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
        }
    }

    /// The owner's oldest waiter not aborted, left at the head of its queue.
    private mutating func peekWaiter(_ queue: inout OwnerQueue) -> LiveExchange? {
        while let first = queue.waiting.first {
            guard !abortedWaiters.isEmpty, abortedWaiters.remove(first.id) != nil else { return first }
            queue.waiting.removeFirst()
            waitingTotal -= 1
        }
        if waitingTotal == 0 { abortedWaiters.removeAll() }
        return nil
    }

    private mutating func popWaiter(_ queue: inout OwnerQueue) -> LiveExchange? {
        guard let first = peekWaiter(&queue) else { return nil }
        queue.waiting.removeFirst()
        waitingTotal -= 1
        return first
    }

    /// Opens a connection for each of the owner's waiters no connect in progress will serve,
    /// within the limit; beyond it the owner waits its turn.
    private mutating func openIfWanted(_ owner: ConnectionOwner, _ queue: inout OwnerQueue, _ action: inout Action) {
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
    private mutating func serveStarved(_ action: inout Action) {
        while counted < limit, let owner = starved.popFirst() {
            guard var queue = takeQueue(owner) else { continue }
            queue.starved = false
            openIfWanted(owner, &queue, &action)
            store(queue, for: owner)
        }
    }

    private mutating func startConnect(for owner: ConnectionOwner, _ queue: inout OwnerQueue) -> ConnectionID {
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
    private mutating func store(_ queue: consuming OwnerQueue, for owner: ConnectionOwner) {
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
    private mutating func takeQueue(_ owner: ConnectionOwner) -> OwnerQueue? {
        guard let index = Self.sharedIndex(owner) else { return queues.removeValue(forKey: owner) }
        return index < sharedQueues.count ? sharedQueues[index].take() : nil
    }

    /// Where a shared owner's queue is in `sharedQueues`; nil for a visitor's.
    private static func sharedIndex(_ owner: ConnectionOwner) -> Int? {
        owner.visitor < 0 && owner.role == .shared ? Int(owner.endpoint) : nil
    }

    /// Frees a counted connection's slot; a later event naming it is stale and ignored.
    private mutating func release(_ index: Int) {
        counted -= 1
        connections[index].state = .free
        connections[index].generation &+= 1
        freeSlots.append(index)
    }

    private func isCurrent(_ id: ConnectionID) -> Bool {
        guard id.index < connections.count, connections[id.index].generation == id.generation else { return false }
        if case .free = connections[id.index].state { return false }
        return true
    }
}

/// One connection of a pool: its slot in the machine, and which use of that slot (an event
/// about a connection that is gone names an older generation and is ignored).
struct ConnectionID: Hashable, Sendable {
    var index: Int
    var generation: UInt32
}
