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
///   `visitorEnded` closes what the visitor still holds. How long a connection stays open idle
///   is its phone's stack's (`IdleLifetime`): Android's `oneUse` connection is `held` open for
///   nobody after its answer, iOS's close after URLSession's idle time (`+IdleCalendar`).
///
/// At most `limit` connections are open, connecting and closing ones included; an owner that
/// wants one beyond it waits its turn (`starved`), first come first served.
/// - A connection that cannot be made fails its owner's oldest waiter, as the SDKs' HTTP
///   stacks report a refused connection at once; the client core's backoff decides what next.
/// - A request whose keep-alive connection closes before any byte of its answer came back is
///   sent again once, on another connection (the server's idle close raced it).
///
/// Its files, by concern: this one (what comes out, the state, queries), `+Slots` (what is
/// kept per connection and per owner), `+OwnerEvents`, `+ConnectionEvents`, `+Decisions`,
/// `+IdleCalendar` (how long idle connections live).
/// The state is internal rather than private only because Swift's `private` ends at a file:
/// nothing outside these files touches it.
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

    let limit: Int
    var connections: [Connection] = []
    var freeSlots: [Int] = []
    /// The visitors' queues (`device`), while they hold anything.
    var queues: [ConnectionOwner: OwnerQueue] = [:]
    /// The shared owners' queues, by endpoint: every event of a `shared` run takes and stores
    /// its owner's queue, and hashing the owner for a dictionary was ~2 % of a keep-alive
    /// request's CPU (`bench/live-ceiling.sh`).
    var sharedQueues: [OwnerQueue?] = []
    /// Owners waiting for a place under the limit, in the order they first wanted one.
    var starved = Deque<ConnectionOwner>()
    /// Waiters aborted by their owner, dropped when they reach the head of their queue (an
    /// abort does not search the queue: a saturated pool holds thousands).
    var abortedWaiters: Set<ExchangeID> = []
    var waitingTotal = 0
    /// Connections against the limit: connecting, idle, busy and closing.
    var counted = 0
    var warmRemaining = 0
    var warmOwner = ConnectionOwner.shared
    /// Connections opened so far (a test counts them: keep-alive reuses).
    var connectionsOpened = 0
    /// Bounded idle spells' ends (`+IdleCalendar`).
    var idleCalendar = IdleCalendar()
    /// The latest instant an event brought: when an idle spell that begins now began.
    var latestNow = RunInstant.origin
    /// Connections `held` open for nobody.
    var held = 0

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
}

/// One connection of a pool: its slot in the machine, and which use of that slot (an event
/// about a connection that is gone names an older generation and is ignored).
struct ConnectionID: Hashable, Sendable {
    var index: Int
    var generation: UInt32
}
