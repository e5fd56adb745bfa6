import QueueClientCore

/// The engine's time: its calendar of wake-ups and answers, the request deadlines beside it,
/// and the next instant an adapter must wake for.
extension VisitorEngine {
    /// Advances the calendar's clock without an event (the virtual clock's arrivals, its end).
    mutating func advanceClock(to instant: RunInstant) {
        calendar.advance(to: instant)
    }

    /// Takes the calendar's next event, whenever it is due, and advances its clock to it.
    mutating func nextEvent() -> (time: RunInstant, event: EngineEvent)? {
        guard let (time, event) = calendar.step() else { return nil }
        return (time, event)
    }

    /// When the next timed event is due: a calendar event or a request deadline.
    mutating func nextEventTime() -> RunInstant? {
        var next = calendar.nextTime
        if let deadline = firstAwaitedDeadline()?.at { next = min(next ?? deadline, deadline) }
        return next
    }

    /// Takes the next event due by `now`, a request deadline before a calendar event of the
    /// same instant; nil when nothing is due.
    mutating func takeEvent(dueBy now: RunInstant) -> EngineEvent? {
        if let deadline = firstAwaitedDeadline(), deadline.at <= now, deadline.at <= calendar.nextTime ?? deadline.at {
            deadlines.removeFirst()
            return .deadline(slot: deadline.slot, serial: deadline.serial)
        }
        guard let next = calendar.nextTime, next <= now, let (_, event) = calendar.step() else { return nil }
        return event
    }

    /// Puts an event on the calendar: the virtual network's answer after its latency, a wake-up
    /// the poll shortcut moved.
    mutating func schedule(_ event: EngineEvent, at instant: RunInstant) {
        calendar.schedule(event, at: instant)
    }

    private mutating func firstAwaitedDeadline() -> RequestDeadlines.Deadline? {
        guard tracksRequestDeadlines else { return nil }
        // A copy of the array's reference: the closure may not read `self` while `deadlines`
        // is being changed.
        let serials = awaitedSerials
        return deadlines.first { slot, serial in slot < serials.count && serials[slot] == serial }
    }

    /// When an adapter on the wall clock must wake next (`nextWake`).
    enum Wake: Equatable {
        /// No visitor is left to arrive and none is in flight.
        case done
        /// Nothing is timed: the next event is an answer.
        case idle
        case at(RunInstant)
    }

    /// The next instant the adapter must wake for: a timed event, or the next arrival if it may
    /// start (a place under the quota) and comes no later than `stop`. Mutating on purpose: a
    /// getter called on a class's stored engine made the compiler copy the whole engine (and
    /// release the copy) at every call, about 2 % of a keep-alive request's CPU.
    mutating func nextWake(arrivalsUntil stop: RunInstant) -> Wake {
        if isDone { return .done }
        var next = nextEventTime()
        if let arrival = nextArrivalAt, hasPlace, arrival <= stop {
            next = min(next ?? arrival, arrival)
        }
        return next.map(Wake.at) ?? .idle
    }

    /// When the next planned visitor arrives; nil when none is left. Mutating for the reason
    /// `nextWake` is.
    mutating func nextArrivalInstant() -> RunInstant? {
        nextArrivalAt
    }
}
