import QueueClientCore

/// The visitors of a run, or of one event loop's share of it, on no clock at all: the slots of
/// the visitors in flight, the calendar of their wake-ups, the plan's cursor, the share of
/// `run.concurrency`, progress and outcome counts. Both runners drive this one engine: the
/// wall clock's `LoopDriver` with NIO timers and sockets, the virtual clock's `VirtualDriver`
/// with the in-process room and the calendar's own time.
///
/// Events go in (an arrival is due, a wake-up or a deadline fires, an answer or a failure
/// comes, the run stops), each with the instant it happens at; an `Action` comes out (send this
/// request, write this row, or nothing). The engine reads no clock, opens no socket and writes
/// no file, so the same events give the same actions, and every decision lives here once.
struct VisitorEngine {
    /// What the adapter carries out after an event.
    enum Action {
        /// Nothing: the visitor waits for a wake-up on the calendar.
        case none
        /// Hand this request to the network; its answer comes back through `received` or
        /// `failed` with the same slot and serial.
        case send(RequestOrder)
        /// The visitor has its outcome: write its row. Boxed: a finished visitor is a few hundred
        /// bytes and the other cases a few dozen, and every event's action is returned and
        /// passed on by value (copying the largest case each time was 2.5 % of a sweep point).
        indirect case finished(FinishedVisitor)
    }

    /// A request a visitor's machine asked to send.
    struct RequestOrder {
        var slot: Int
        /// Tells this request's answer from a stale one; 0 when the engine tracks no
        /// deadlines (the virtual network answers by the deadline itself).
        var serial: UInt32
        var request: OutgoingRequest
        var timeout: RequestTimeout
        /// What the request is for: the SDK's enqueue call, its WebView's page loads and polls,
        /// or the app's protected API (which connection of a phone it would ride, and the
        /// endpoint its answer is counted under).
        var kind: RequestStatistics.Endpoint
        /// An after-pass call (`afterPass`), counted apart as the load behind the queue.
        var afterPass = false
    }

    /// Counts a request as sent at `now`: when it is handed over (false), or, with
    /// `run.maxRequestRate`, when the driver sends it after its turn (true, `countSent`).
    var countsRequestsWhenSent = false

    /// Counts a request the driver sends at `now` (`countsRequestsWhenSent`).
    mutating func countSent(_ order: RequestOrder, at now: RunInstant) {
        let second = Timeline.second(of: now)
        sent.count(inSecond: second)
        if order.afterPass { sent.countAfterPass(inSecond: second) }
    }

    /// Wake-ups (and on the virtual clock the room's answers), in `(time, sequence)` order.
    /// Internal, not private: `VisitorEngine+Behaviour` (another file) schedules and takes slots.
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
    /// awaited), for the wall clock's look at a deadline again (`awaitedTimeout`).
    private var awaitedTimeouts: [RequestTimeout] = []
    private var nextSerial: UInt32 = 0
    /// Request deadlines in the order they were set, beside the calendar (`RequestDeadlines`).
    private var deadlines = RequestDeadlines()
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
    ///   - templates: one configuration per group and platform of its mix
    ///     (`PreparedRun.makeGroupTemplates` for a thread of its own).
    ///   - quota: the most visitors in flight at once.
    init(
        plan: VisitorPlan, part: Int = 0, of parts: Int = 1, templates: [[VisitorConfiguration]], quota: Int = .max,
        tracksRequestDeadlines: Bool, behaviours: VisitorBehaviourBook? = nil
    ) throws {
        self.behaviours = behaviours
        self.plan = plan
        self.part = part
        self.parts = parts
        self.templates = templates
        self.quota = max(1, quota)
        self.tracksRequestDeadlines = tracksRequestDeadlines
        nextArrival = try self.plan.next(ownedBy: part, of: parts)
        nextArrivalAt = nextArrival?.arrival  // (an initializer's assignment calls no didSet)
    }

    /// No visitor is left to arrive and none is in flight.
    var isDone: Bool { nextArrivalAt == nil && inFlight == 0 }

    /// Whether another visitor may start under `quota`.
    var hasPlace: Bool { inFlight < quota }

    // MARK: - Events in

    /// Starts `nextArrival` at `now` (the adapter decides when: at its instant, or later when
    /// the quota held it back) and moves the cursor to the next planned visitor.
    mutating func startNextArrival(at now: RunInstant) throws -> Action {
        guard let visitor = nextArrival.take() else { return .none }
        nextArrival = try plan.next(ownedBy: part, of: parts)
        inFlight += 1
        progress.arrived(group: visitor.groupIndex)
        progress.started += 1
        let configuration = PreparedRun.visitorConfiguration(for: visitor, templates: templates)
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
    mutating func received(
        _ response: IncomingResponse, slot: Int, serial: UInt32, at now: RunInstant, handshake: Handshake? = nil
    ) -> Action {
        guard takeAwaited(slot: slot, serial: serial) else { return .none }
        if behaviours != nil, let action = afterlifeEvent(slot: slot, response: response, error: nil, at: now) {
            return action
        }
        if tracksRequestDeadlines { slots.modify(slot) { $0.settleFirstHandshake(handshake) } }
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
    /// The timeout of request `serial` of the visitor in `slot`, while it is awaited.
    func awaitedTimeout(slot: Int, serial: UInt32) -> RequestTimeout? {
        awaits(slot: slot, serial: serial) ? awaitedTimeouts[slot] : nil
    }

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
            guard var visitor = slots.take(slot) else { continue }
            slots.release(slot)
            // A visitor who gave up (its row written) or passed and is shopping has its row.
            if visitor.machine.phase == .finished, !visitor.isComingBack {
                if visitor.afterlife != nil { inFlight -= 1 }
                continue
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

    // MARK: - The calendar

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
    /// the poll shortcut moved, a deadline looked at again later.
    mutating func schedule(_ event: EngineEvent, at instant: RunInstant) {
        calendar.schedule(event, at: instant)
    }

    // MARK: - Lending a machine

    /// The request a machine in `phase` (after the event that made it send) is sending.
    static func kind(of phase: VisitorPhase) -> RequestStatistics.Endpoint {
        switch phase {
        case .enqueueing: .enqueue
        case .protectedApi: .protectedApi
        case .inQueue, .notStarted, .finished: .queuePage
        }
    }

    /// The plan index of the visitor in `slot` and its group's (nil when the slot is empty).
    mutating func visitor(inSlot slot: Int) -> (index: Int, groupIndex: Int)? {
        // Through `modify`: a read would copy the record, machine and all.
        slots.modify(slot) { ($0.index, $0.groupIndex) }
    }

    /// The platform the visitor in `slot` runs as (nil when the slot is empty).
    mutating func platform(ofSlot slot: Int) -> ClientPlatform? {
        slots.modify(slot) { $0.machine.configuration.group.platform }
    }

    /// The group settings of the visitor in `slot` (nil when the slot is empty).
    func groupSettings(ofSlot slot: Int) -> VisitorGroupSettings? {
        slots[slot]?.machine.configuration.group
    }

    /// Lends the machine of the visitor in `slot` (nil when the slot is empty) for the virtual
    /// clock's poll shortcut, with the request counts, where it counts the polls it answers
    /// without sending them.
    mutating func withMachine<Result>(
        inSlot slot: Int, _ body: (inout VisitorMachine, inout SentRequests) throws -> Result
    ) rethrows -> Result? {
        try Self.lend(slot, from: &slots, with: &sent, body)
    }

    /// The slots and the counts as two `inout`s: a closure that reached `sent` through `self`
    /// would overlap the access to `slots`.
    private static func lend<Result>(
        _ slot: Int, from slots: inout SlotStore<InFlightVisitor>, with sent: inout SentRequests,
        _ body: (inout VisitorMachine, inout SentRequests) throws -> Result
    ) rethrows -> Result? {
        try slots.modify(slot) { try body(&$0.machine, &sent) }
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

    // MARK: - Carrying out what a machine asked for

    /// Runs one event through the visitor's machine, in its slot, and carries out what the
    /// machine asked for.
    mutating func advance(
        _ slot: Int, at now: RunInstant, _ event: (inout VisitorMachine) -> VisitorMachine.Action
    ) -> Action {
        // The phases and group come out through locals, the action as the result: a tuple of
        // all four was copied and destroyed through the runtime's generic tuple witnesses.
        var (before, after, group) = (VisitorPhase.notStarted, VisitorPhase.notStarted, 0)
        let action = slots.modify(slot) { visitor in
            before = visitor.machine.readPhase()
            let action = event(&visitor.machine)
            if case .send = action { visitor.requestSentAt = now }
            after = visitor.machine.readPhase()
            group = visitor.groupIndex
            return action
        }
        guard let action else { return .none }
        progress.phaseChanged(from: before, to: after, group: group)
        if behaviours != nil, after == .inQueue, before != .inQueue { startPatience(slot: slot, at: now) }
        // Consumed: a request moves into the order instead of being copied.
        switch consume action {
        case .finish(let result):
            if behaviours != nil, result.outcome == .passed, let row = startAfterPass(slot: slot, result, at: now) {
                return .finished(row)
            }
            let visitor = slots.remove(slot)
            inFlight -= 1
            var finished = finish(
                visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: result,
                afterlife: visitor.afterlife)
            finished.handshake = visitor.firstHandshake.handshake
            return .finished(finished)
        case .wait(let deadline):
            calendar.schedule(.wake(slot: slot), at: deadline)
            return .none
        case .send(let request, let timeout):
            if !countsRequestsWhenSent { sent.count(inSecond: Timeline.second(of: now)) }
            let serial = tracksRequestDeadlines ? awaitAnswer(slot: slot, timeout: timeout, sentAt: now) : 0
            return .send(
                RequestOrder(
                    slot: slot, serial: serial, request: request, timeout: timeout, kind: Self.kind(of: after)))
        }
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

    /// Counts the answer (or failure) to the request of the visitor in `slot`, by the phase that
    /// sent it and the time since it was sent.
    private mutating func countAnswer(slot: Int, status: RequestStatistics.Status, at now: RunInstant) {
        guard sent.keepsAnswers,
            let (phase, sentAt) = slots.modify(slot, { ($0.machine.readPhase(), $0.requestSentAt) })
        else { return }
        let elapsed = now.sinceOrigin - sentAt.sinceOrigin
        sent.answers.answered(
            Self.kind(of: phase), status: status, milliseconds: UInt64(max(0, elapsed.wholeMilliseconds)),
            inSecond: Timeline.second(of: now))
    }

    /// Gives the request a serial and its first deadline; returns the serial.
    mutating func awaitAnswer(slot: Int, timeout: RequestTimeout, sentAt now: RunInstant) -> UInt32 {
        nextSerial &+= 1
        if nextSerial == 0 { nextSerial = 1 }
        if slot >= awaitedSerials.count {
            awaitedSerials.append(contentsOf: repeatElement(0, count: slot + 1 - awaitedSerials.count))
            awaitedTimeouts.append(
                contentsOf: repeatElement(timeout, count: slot + 1 - awaitedTimeouts.count))
        }
        awaitedSerials[slot] = nextSerial
        awaitedTimeouts[slot] = timeout
        let deadline = timeout.firstDeadline(sentAt: now)
        if !deadlines.append(RequestDeadlines.Deadline(at: deadline, slot: slot, serial: nextSerial)) {
            calendar.schedule(.deadline(slot: slot, serial: nextSerial), at: deadline)
        }
        return nextSerial
    }

    /// Whether an answer to request `serial` is awaited; if so, it no longer is.
    private mutating func takeAwaited(slot: Int, serial: UInt32) -> Bool {
        guard tracksRequestDeadlines else { return true }
        guard awaits(slot: slot, serial: serial) else { return false }
        awaitedSerials[slot] = 0
        return true
    }

    private mutating func firstAwaitedDeadline() -> RequestDeadlines.Deadline? {
        guard tracksRequestDeadlines else { return nil }
        // A copy of the array's reference: the closure may not read `self` while `deadlines`
        // is being changed.
        let serials = awaitedSerials
        return deadlines.first { slot, serial in slot < serials.count && serials[slot] == serial }
    }
}
