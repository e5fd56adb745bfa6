import DequeModule
import QueueClientCore

/// The decisions of one loop's connection pool (`LiveConnectionPool`), with no channel, no
/// I/O and no clock: events in (a request queued, a connection established or closed, an
/// answer read, the owner's abort), actions out (connect, send an exchange on a connection,
/// complete or fail an exchange, close a connection). The pool performs the actions with NIO.
///
/// - Waiters are served first come, first served; at most `limit` connections are open,
///   connecting and closing ones included.
/// - A connection that cannot be made fails the oldest waiter, as the SDKs' HTTP stacks report
///   a refused connection at once; the client core's backoff decides what comes next.
/// - A request whose keep-alive connection closes before any byte of its answer came back is
///   sent again once, on another connection (the server's idle close raced it).
/// - Connections and exchanges carry a `ConnectionOwner`: an idle connection carries only its
///   owner's exchanges, and `exchangeSucceeded(on:reusable:)` lets a policy retire a
///   connection after one exchange. Today every exchange is `.shared`.
struct ConnectionPoolStateMachine {
    /// An exchange to write on a connection the machine has just made busy with it.
    struct Execution: Equatable {
        var exchange: LiveExchange
        var connection: ConnectionID
    }

    /// How an exchange ends for its owner.
    enum Completion: Equatable {
        /// The answer was read (the pool holds it).
        case succeeded(LiveExchange)
        case failed(LiveExchange, TransportError)
    }

    /// What to do after an event, in this order: close, connect, execute, complete. An event
    /// frees at most one connection, so at most one exchange starts per event.
    struct Action: Equatable {
        var close: ConnectionID?
        var connect: [ConnectionID] = []
        var execute: Execution?
        var complete: Completion?

        static let none = Action()
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
        case busy(LiveExchange)
        /// Asked to close (aborted, closed with the pool, closed while connecting): it counts
        /// against the limit until its channel is gone.
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
    }

    let limit: Int
    private var connections: [Connection] = []
    private var freeSlots: [Int] = []
    /// Idle connections, the most recently used last (it is the likeliest still open).
    private var idle: [ConnectionID] = []
    private var waiting = Deque<LiveExchange>()
    /// Waiters aborted by their owner, dropped when they reach the head of the queue (an
    /// abort does not search the queue: a saturated pool holds thousands).
    private var abortedWaiters: Set<ExchangeID> = []
    /// Connections against the limit: connecting, idle, busy and closing.
    private var counted = 0
    private var connecting = 0
    private var warmRemaining = 0
    /// Connections opened so far (a test counts them: keep-alive reuses).
    private(set) var connectionsOpened = 0

    /// Connections warmed per `warmStep`, so the first arrivals do not wait behind hundreds
    /// of connects.
    static let warmBatch = 32

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waiters in the queue (aborted ones included until they come up).
    var waitingCount: Int { waiting.count }
    /// Connections counted against the limit.
    var openCount: Int { counted }

    // MARK: - Events from the owner

    /// A request to send: on an idle connection of its owner, or after the waiters before it.
    mutating func requestQueued(_ exchange: LiveExchange) -> Action {
        waiting.append(exchange)
        var action = Action.none
        dispatch(&action)
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
        if !waiting.isEmpty { abortedWaiters.insert(id) }
        return .none
    }

    /// Opens up to `count` connections ahead of need, within the limit: `warmBatch` now and as
    /// many at every `warmStep`.
    mutating func warm(_ count: Int) -> Action {
        warmRemaining = count
        return warmStep()
    }

    mutating func warmStep() -> Action {
        guard warmRemaining > 0 else { return .none }
        let batch = max(0, min(warmRemaining, Self.warmBatch, limit - counted))
        warmRemaining = batch == 0 ? 0 : warmRemaining - batch
        var action = Action.none
        for _ in 0..<batch { action.connect.append(startConnect(for: .shared)) }
        return action
    }

    /// Closes every connection and fails every exchange (their owner is done with them).
    mutating func closeAll() -> CloseAllAction {
        var action = CloseAllAction()
        while let exchange = waiting.popFirst() {
            if abortedWaiters.isEmpty || abortedWaiters.remove(exchange.id) == nil { action.fail.append(exchange) }
        }
        abortedWaiters.removeAll()
        idle.removeAll()
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
        connecting -= 1
        var action = Action.none
        switch connections[id.index].state {
        case .connecting:
            connections[id.index].state = .idle
            idle.append(id)
        case .closing:
            action.close = id  // closed with the pool while it connected
        case .free, .idle, .busy, .released:
            break
        }
        dispatch(&action)
        return action
    }

    /// The connect failed (refused, timed out, TLS set-up): the oldest waiter fails with `error`.
    mutating func connectFailed(_ id: ConnectionID, error: TransportError) -> Action {
        guard isCurrent(id), connections[id.index].connectPending else { return .none }
        connecting -= 1
        release(id.index)
        var action = Action.none
        while let first = waiting.popFirst() {
            if !abortedWaiters.isEmpty, abortedWaiters.remove(first.id) != nil { continue }
            action.complete = .failed(first, error)
            break
        }
        dispatch(&action)
        return action
    }

    /// The answer to the connection's exchange was read. `reusable`: the answer keeps the
    /// connection open (and the policy lets it carry another exchange).
    mutating func exchangeSucceeded(on id: ConnectionID, reusable: Bool) -> Action {
        guard isCurrent(id), case .busy(let exchange) = connections[id.index].state else { return .none }
        connections[id.index].served += 1
        var action = Action(complete: .succeeded(exchange))
        if reusable {
            connections[id.index].state = .idle
            idle.append(id)
        } else {
            connections[id.index].state = .released
            counted -= 1
            action.close = id
        }
        dispatch(&action)
        return action
    }

    /// The owner no longer awaited the exchange when it came to be written (it was never
    /// sent): the connection is idle again.
    mutating func exchangeWithdrawn(on id: ConnectionID) -> Action {
        guard isCurrent(id), case .busy = connections[id.index].state else { return .none }
        connections[id.index].state = .idle
        idle.append(id)
        var action = Action.none
        dispatch(&action)
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
        case .busy(var exchange):
            // A server may close an idle keep-alive connection just as a request goes out on
            // it. Browsers and HTTP stacks resend such a request once on a new connection; so
            // does the pool, so the visitor does not pay an SDK retry for the transport's race.
            if connection.served > 0 && !receivedResponseBytes && !exchange.resent {
                exchange.resent = true
                waiting.prepend(exchange)
            } else {
                action.complete = .failed(exchange, error)
            }
            release(id.index)
        case .idle:
            if let position = idle.lastIndex(of: id) { idle.remove(at: position) }
            release(id.index)
        case .closing:
            release(id.index)
        case .released:
            // Already uncounted when its last answer came.
            connections[id.index].state = .free
            connections[id.index].generation &+= 1
            freeSlots.append(id.index)
        }
        dispatch(&action)
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

    // MARK: - Decisions

    /// Hands the oldest waiter to an idle connection of its owner, then opens connections for
    /// the waiters no connect in progress will serve, within the limit.
    private mutating func dispatch(_ action: inout Action) {
        if !abortedWaiters.isEmpty {
            while let first = waiting.first, abortedWaiters.remove(first.id) != nil { waiting.removeFirst() }
            if waiting.isEmpty { abortedWaiters.removeAll() }
        }
        if let first = waiting.first, let connection = popIdle(for: first.owner) {
            waiting.removeFirst()
            connections[connection.index].state = .busy(first)
            action.execute = Execution(exchange: first, connection: connection)
        }
        var wanted = waiting.count - connecting
        while wanted > 0, counted < limit {
            let waiter = waiting[waiting.count - wanted]
            action.connect.append(startConnect(for: waiter.owner))
            wanted -= 1
        }
    }

    private mutating func popIdle(for owner: ConnectionOwner) -> ConnectionID? {
        guard let position = idle.lastIndex(where: { connections[$0.index].owner == owner }) else { return nil }
        return idle.remove(at: position)
    }

    private mutating func startConnect(for owner: ConnectionOwner) -> ConnectionID {
        counted += 1
        connecting += 1
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
        return ConnectionID(index: index, generation: connections[index].generation)
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

/// Whose connections an exchange may ride. Every exchange of today's pool is `.shared`: the
/// loop's keep-alive connections serve any visitor. A per-visitor policy keys connections by
/// the visitor's slot and a role (its enqueue connection, its page-load connection).
struct ConnectionOwner: Hashable, Sendable {
    /// The visitor slot, or -1 for the shared pool.
    var slot: Int
    var role: UInt8

    static let shared = ConnectionOwner(slot: -1, role: 0)
}
