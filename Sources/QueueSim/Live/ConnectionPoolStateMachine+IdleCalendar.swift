import DequeModule
import QueueClientCore

/// How long idle connections live (`IdleLifetime`): the machine notes when each bounded idle
/// spell ends, and `expireIdle(at:)` closes the connections whose spell is over. Android's
/// abandoned enqueue connections are `held` (owned by nobody, never reused) until the server
/// closes them or OkHttp's pool would have evicted them; iOS connections close after URLSession's
/// idle time. The machine has no clock: it learns the time from the events that carry it.
extension ConnectionPoolStateMachine {
    /// When an idle spell of a connection ends.
    struct IdleDeadline: Equatable {
        var at: RunInstant
        var connection: ConnectionID
        var spell: UInt32
    }

    /// The deadlines, one first-in-first-out lane per idle bound: the instants handed to the
    /// machine never go back (`latestNow`), so in a lane each deadline is no earlier than the
    /// one before it, and the due ones are at its head. A few lanes at most (one per stack).
    struct IdleCalendar {
        var lanes: [(bound: Duration, deadlines: Deque<IdleDeadline>)] = []

        /// At once for a run with no bounded idle spells (no lanes): the pool asks at every event.
        var isEmpty: Bool { lanes.isEmpty || lanes.allSatisfy { $0.deadlines.isEmpty } }

        /// The earliest deadline noted (maybe of a spell already over).
        var next: RunInstant? {
            var earliest: RunInstant?
            for lane in lanes {
                guard let first = lane.deadlines.first?.at else { continue }
                if earliest.map({ first < $0 }) ?? true { earliest = first }
            }
            return earliest
        }

        mutating func note(_ deadline: IdleDeadline, bound: Duration) {
            if let lane = lanes.firstIndex(where: { $0.bound == bound }) {
                lanes[lane].deadlines.append(deadline)
            } else {
                lanes.append((bound, [deadline]))
            }
        }

        /// Takes out every deadline at or before `now`.
        mutating func takeDue(at now: RunInstant) -> [IdleDeadline] {
            var due: [IdleDeadline] = []
            for lane in lanes.indices {
                while let first = lanes[lane].deadlines.first, first.at <= now {
                    due.append(lanes[lane].deadlines.removeFirst())
                }
            }
            return due
        }

        mutating func removeAll() {
            lanes.removeAll()
        }
    }

    /// The earliest instant `expireIdle(at:)` may close something; nil: nothing bounded is idle.
    var nextIdleDeadline: RunInstant? { idleCalendar.next }

    /// Whether any bounded idle spell is noted (a timer should be armed).
    var hasIdleDeadlines: Bool { !idleCalendar.isEmpty }

    /// Connections held open after their one exchange (`held`), now.
    var heldCount: Int { held }

    /// Closes the connections whose idle spell is over at `now`: an iOS connection idle for
    /// URLSession's idle time, an abandoned Android one OkHttp's pool would evict. They count
    /// against the limit until their channel is gone (`connectionClosed`).
    mutating func expireIdle(at now: RunInstant) -> [ConnectionID] {
        learn(now)
        var closing: [ConnectionID] = []
        for deadline in idleCalendar.takeDue(at: latestNow) {
            let id = deadline.connection
            guard isCurrent(id), connections[id.index].idleSpell == deadline.spell else { continue }
            switch connections[id.index].state {
            case .held:
                held -= 1
            case .idle:
                let owner = connections[id.index].owner
                if var queue = takeQueue(owner) {
                    if let position = queue.idle.lastIndex(of: id) { queue.idle.remove(at: position) }
                    store(queue, for: owner)
                }
            case .free, .connecting, .busy, .closing, .released:
                continue
            }
            connections[id.index].state = .closing
            closing.append(id)
        }
        return closing
    }

    /// The instant of an event that carries one; the machine's time never goes back.
    mutating func learn(_ now: RunInstant?) {
        if let now, now > latestNow { latestNow = now }
    }

    /// Starts an idle spell of connection `id` (idle for its owner, or `held`), bounded when
    /// `lifetime` bounds it.
    mutating func beginIdleSpell(_ id: ConnectionID, lifetime: IdleLifetime) {
        connections[id.index].idleSpell &+= 1
        guard let bound = lifetime.idleBound else { return }
        idleCalendar.note(
            IdleDeadline(at: latestNow + bound, connection: id, spell: connections[id.index].idleSpell), bound: bound)
    }

    /// Keeps connection `id`, whose one exchange `lifetime` abandons, open for nobody.
    mutating func hold(_ id: ConnectionID, lifetime: IdleLifetime) {
        connections[id.index].state = .held
        held += 1
        beginIdleSpell(id, lifetime: lifetime)
    }
}
