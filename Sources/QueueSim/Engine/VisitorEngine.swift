import QueueClientCore

/// The visitors of a run, or of one event loop's share of it, on no clock at all: the slots of
/// the visitors in flight, the calendar of their wake-ups, the plan's cursor, the share of
/// `run.concurrency`, the request pacing, progress and outcome counts. Both runners drive this
/// one engine: the wall clock's `LoopDriver` with NIO timers and sockets, the virtual clock's
/// `VirtualDriver` with the in-process room and the calendar's own time.
///
/// Events go in (an arrival is due, a wake-up or a deadline fires, an answer or a failure
/// comes, a paced request's turn comes, the run stops), each with the instant it happens at;
/// an `Action` comes out (send this request now or at its turn, write this row, or nothing).
/// The engine reads no clock, opens no socket and writes no file, so the same events give the
/// same actions, and every decision lives here once.
///
/// The engine's other files: `+Requests` (carrying out what a machine asked for, serials and
/// deadlines, pacing), `+Calendar` (the next event and wake-up), `+Lending` (a machine lent to
/// the poll shortcut), `+Behaviour` (patience, comebacks, after-pass calls).
struct VisitorEngine {
    /// What the adapter carries out after an event.
    enum Action {
        /// Nothing: the visitor waits for a wake-up on the calendar.
        case none
        /// Hand this request to the network now; its answer comes back through `received` or
        /// `failed` with the same slot and serial.
        case send(RequestOrder)
        /// `run.maxRequestRate`: the request may go at `leaves`, not before. The adapter only
        /// schedules it, and hands it back through `turnCame` then. Boxed: it is rare.
        indirect case sendLater(PacedRequest)
        /// The visitor has its outcome: write its row. Boxed: a finished visitor is a few hundred
        /// bytes and the other cases a few dozen, and every event's action is returned and
        /// passed on by value (copying the largest case each time was 2.5 % of a sweep point).
        indirect case finished(FinishedVisitor)
    }

    /// Wake-ups (and on the virtual clock the room's answers), in `(time, sequence)` order.
    var calendar = DiscreteEventLoop<EngineEvent>()
    var slots = SlotStore<InFlightVisitor>()
    private var plan: VisitorPlan
    /// This engine's share of the plan: the visitors whose position is `part` modulo `parts`.
    private let part: Int
    private let parts: Int
    /// The next planned visitor of this engine, not started yet.
    private(set) var nextArrival: PlannedVisitor? {
        didSet { nextArrivalAt = nextArrival?.arrival }
    }
    /// When `nextArrival` arrives. Kept beside it because the drivers ask at every event, and
    /// asking the optional visitor itself (`nextArrival == nil`, `nextArrival?.arrival`) copied
    /// it, retains and all (`perf` of the million: 0.6 % of its samples in `isDone` alone).
    private(set) var nextArrivalAt: RunInstant?
    private let templates: [[VisitorConfiguration]]
    /// The most visitors in flight at once (this engine's share of `run.concurrency`).
    let quota: Int
    var inFlight = 0
    /// The wall clock sends requests into sockets that may never answer, so each request gets
    /// a serial and a deadline; the virtual network always answers by the deadline itself.
    let tracksRequestDeadlines: Bool
    /// Per slot: the serial of the request the visitor awaits, 0 when none.
    var awaitedSerials: [UInt32] = []
    /// Per slot: the timeout of the request the visitor awaits (meaningful while its serial is
    /// awaited), for a deadline's second look (`deadlineFired`).
    var awaitedTimeouts: [RequestTimeout] = []
    var nextSerial: UInt32 = 0
    /// Request deadlines in the order they were set, beside the calendar (`RequestDeadlines`).
    var deadlines = RequestDeadlines()
    /// `run.maxRequestRate`'s turns; nil sends every request when its visitor asks.
    var pacer: PacerTurns?
    var progress = RunProgress.Snapshot()
    /// Finished visitors by outcome (`outcomes` order): a scan of eight cases compares tags,
    /// a dictionary would hash once per visitor.
    var outcomeCounts = [Int](repeating: 0, count: VisitorEngine.outcomes.count)
    /// `allCases` once: the synthesized property builds a new array on every call.
    static let outcomes = VisitorOutcome.allCases
    var sent = SentRequests()
    /// The groups' behaviours (`patience`, `comeback`, `afterPass`); nil when none has one.
    let behaviours: VisitorBehaviourBook?
    /// The serial of the last `giveUp` or `resume` event scheduled.
    var lastBehaviourSerial: UInt32 = 0

    /// - Parameters:
    ///   - templates: one configuration per group and platform of its mix (a set of its own
    ///     for an engine on a thread of its own).
    ///   - quota: the most visitors in flight at once.
    ///   - pacer: `run.maxRequestRate`'s turns, if the run has a cap.
    init(
        plan: VisitorPlan, part: Int = 0, of parts: Int = 1, templates: [[VisitorConfiguration]], quota: Int = .max,
        tracksRequestDeadlines: Bool, behaviours: VisitorBehaviourBook? = nil, pacer: PacerTurns? = nil
    ) throws {
        self.behaviours = behaviours
        self.plan = plan
        self.part = part
        self.parts = parts
        self.templates = templates
        self.quota = max(1, quota)
        self.tracksRequestDeadlines = tracksRequestDeadlines
        self.pacer = pacer
        nextArrival = try self.plan.next(ownedBy: part, of: parts)
        nextArrivalAt = nextArrival?.arrival  // (an initializer's assignment calls no didSet)
    }

    /// No visitor is left to arrive and none is in flight.
    var isDone: Bool { nextArrivalAt == nil && inFlight == 0 }

    /// Whether another visitor may start under `quota`.
    var hasPlace: Bool { inFlight < quota }

    /// Requests are counted when they go, not when asked for: with a cap, a request waits.
    var countsRequestsWhenSent: Bool { pacer != nil }

    // MARK: - Events in

    /// Starts `nextArrival` at `now` (the adapter decides when: at its instant, or later when
    /// the quota held it back) and moves the cursor to the next planned visitor.
    mutating func startNextArrival(at now: RunInstant) throws -> Action {
        guard let visitor = nextArrival.take() else { return .none }
        nextArrival = try plan.next(ownedBy: part, of: parts)
        inFlight += 1
        progress.arrived(group: visitor.groupIndex)
        progress.started += 1
        let configuration = visitor.configuration(from: templates)
        let slot = slots.insert(
            InFlightVisitor(
                machine: VisitorMachine(configuration: configuration), index: visitor.index,
                arrival: visitor.arrival, groupIndex: visitor.groupIndex))
        return advance(slot, at: now) { $0.start(at: now) }
    }

    /// The visitor's wake-up has come.
    mutating func wake(slot: Int, at now: RunInstant) -> Action {
        if behaviours != nil, let action = afterlifeEvent(slot: slot, response: nil, error: nil, at: now) {
            return action
        }
        return advance(slot, at: now) { $0.waited(at: now) }
    }

    /// The answer to request `serial` of the visitor in `slot` (ignored when the visitor no
    /// longer awaits it: it timed out, or the run stopped).
    /// `handshake`: the request went out on a connection opened for it (the wall clock's).
    /// `spoke`: the HTTP version of the connection that answered (the wall clock's).
    mutating func received(
        _ response: IncomingResponse, slot: Int, serial: UInt32, at now: RunInstant, handshake: Handshake? = nil,
        spoke: SpokenProtocol? = nil
    ) -> Action {
        guard takeAwaited(slot: slot, serial: serial) else { return .none }
        if behaviours != nil, let action = afterlifeEvent(slot: slot, response: response, error: nil, at: now) {
            return action
        }
        if tracksRequestDeadlines {
            slots.modify(slot) { visitor in
                visitor.settleFirstHandshake(handshake)
                if let spoke { visitor.noteSpoken(spoke) }
            }
        }
        countAnswer(slot: slot, status: .init(code: response.head.status.code), at: now)
        return advance(slot, at: now) { $0.received(response, at: now) }
    }

    /// The failure of request `serial` of the visitor in `slot`: the transport's, or the
    /// request's deadline (`.timedOut`).
    mutating func failed(
        _ error: TransportError, slot: Int, serial: UInt32, at now: RunInstant, handshake: Handshake? = nil
    ) -> Action {
        guard takeAwaited(slot: slot, serial: serial) else { return .none }
        if behaviours != nil, let action = afterlifeEvent(slot: slot, response: nil, error: error, at: now) {
            return action
        }
        if tracksRequestDeadlines { slots.modify(slot) { $0.settleFirstHandshake(handshake) } }
        countAnswer(slot: slot, status: .init(error), at: now)
        return advance(slot, at: now) { $0.failed(error, at: now) }
    }

    /// Whether the visitor in `slot` still awaits the answer to request `serial`.
    func awaits(slot: Int, serial: UInt32) -> Bool {
        slot < awaitedSerials.count && awaitedSerials[slot] == serial
    }

    /// Ends every visitor in flight at `instant` (in the queue at `run.duration`: `queued`;
    /// otherwise `interrupted`), in slot order, which is deterministic. With `dueArrivals`, also
    /// gives an `interrupted` row to every planned visitor whose arrival had come by `instant`
    /// but who never started: on the wall clock the quota or the loop's lag held it back. (On the
    /// virtual clock an arrival not yet taken has not happened.) Rows go to `row` one at a time.
    mutating func stop(
        at instant: RunInstant, reason: StopReason, dueArrivals: Bool, row: (FinishedVisitor) throws -> Void
    ) throws {
        for slot in 0..<slots.capacity {
            guard let finished = stopVisitor(inSlot: slot, at: instant, reason: reason) else { continue }
            try row(finished)
        }
        while dueArrivals, let arrival = nextArrivalAt, arrival <= instant, let visitor = nextArrival {
            nextArrival = try plan.next(ownedBy: part, of: parts)
            progress.arrived(group: visitor.groupIndex)
            let neverStarted = VisitorResult(
                outcome: .interrupted, marks: VisitorMarks(started: instant, ended: instant))
            try row(
                finish(visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: neverStarted))
        }
    }

    /// Empties `slot` as the run stops: the row of the visitor in it, or nil when it had one
    /// already (it gave up, or passed and is shopping) or the slot is empty.
    private mutating func stopVisitor(inSlot slot: Int, at instant: RunInstant, reason: StopReason)
        -> FinishedVisitor?
    {
        guard var visitor = slots.take(slot) else { return nil }
        slots.release(slot)
        if tracksRequestDeadlines, slot < awaitedSerials.count { awaitedSerials[slot] = 0 }
        if visitor.machine.phase == .finished, !visitor.isComingBack {
            if visitor.afterlife != nil { inFlight -= 1 }
            return nil
        }
        if visitor.machine.phase == .inQueue { progress.inQueue -= 1 }
        var result = visitor.machine.stop(at: instant, reason: reason)
        var afterlife = visitor.afterlife
        if let before = visitor.rowBeforeItsComeback { (result, afterlife) = before }
        inFlight -= 1
        var finished = finish(
            visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: result,
            afterlife: afterlife)
        finished.handshake = visitor.firstHandshake.handshake
        finished.spoken = visitor.spokenProtocols
        return finished
    }

    // MARK: - Progress

    /// This engine's counters as of `now`, for `RunProgress.publish`.
    func progress(at now: RunInstant) -> RunProgress.Snapshot {
        var snapshot = progress
        snapshot.now = now
        snapshot.requests = sent.total
        snapshot.answers = sent.answers.totals
        for (index, outcome) in Self.outcomes.enumerated() where outcomeCounts[index] > 0 {
            snapshot.outcomes[outcome] = outcomeCounts[index]
        }
        return snapshot
    }

    /// The row of a visitor with its outcome; `afterlife`: its earlier attempts, if it came back.
    mutating func finish(
        _ index: Int, arrival: RunInstant, groupIndex: Int, result: VisitorResult, afterlife: Afterlife? = nil
    ) -> FinishedVisitor {
        outcomeCounts[Self.outcomes.firstIndex(of: result.outcome)!] += 1
        var finished = FinishedVisitor(index: index, arrival: arrival, groupIndex: groupIndex, result: result)
        if case .comingBack(let earlier) = afterlife { earlier.fold(into: &finished) }
        // As visitors.csv's wait_ms: whole milliseconds on the queue page.
        let marks = finished.result.marks
        let waitSeconds = marks.queueEntered.map { Double(max(0, (marks.ended - $0).wholeMilliseconds)) / 1000 }
        progress.finished(group: groupIndex, outcome: result.outcome, waitSeconds: waitSeconds)
        return finished
    }
}
