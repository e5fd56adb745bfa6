import DequeModule
import QueueClientCore

/// A virtual run's `VisitorEngine` on simulated time: the calendar's clock is the run's
/// clock, and every request is answered by the in-process room at once, its answer (or the
/// client's timeout) put on the calendar after the modelled delay. No task or thread per
/// visitor: a visitor is a machine in a slot, an event a `(time, sequence, payload)` entry.
///
/// `Watch`: what judges the run second by second (the guardrails), generic rather than an
/// existential because it is asked at every event.
struct VirtualDriver<Watch: RunWatch> {
    let room: WaitingRoomService
    let progress: RunProgress
    let stopSignal: RunStopSignal

    var engine: VisitorEngine
    /// Where finished visitors go (the runner's row writer).
    var rows: any FinishedVisitorSink
    var eventsSincePublish = 0
    /// Skip queue-page polls whose answers the room forecasts (`PollShortcut`); nil turns it off.
    var pollShortcut: PollShortcut?
    /// Polls the shortcut counted without handing them to the room.
    var skippedPolls = 0
    /// How many events between two looks at the stop signal and two progress publications.
    static var publishEvery: Int { 16_384 }
    /// The room's queue at the end of each second so far (metrics.prom), and the end of the
    /// next second to sample.
    private(set) var roomSeries = RoomSeries()
    private var nextRoomSample = RunInstant.origin + .seconds(1)
    /// The scenario's windowed thresholds (guardrails), judged second by second; nil without any.
    var watch: Watch?
    /// `run.maxRequestRate`: requests wait here for the turn the engine gave them, in the order
    /// they asked (turns come in that order).
    private var paced: Deque<VisitorEngine.PacedRequest> = []

    init(
        input: DriverInput, plan: VisitorPlan, watch: Watch?, room: WaitingRoomService, rows: any FinishedVisitorSink,
        progress: RunProgress, stopSignal: RunStopSignal
    ) throws {
        self.room = room
        self.progress = progress
        self.stopSignal = stopSignal
        let pacer = input.requestPacer.map(PacerTurns.own)
        engine = try VisitorEngine(
            plan: plan, templates: input.templates, tracksRequestDeadlines: false, behaviours: input.behaviours,
            pacer: pacer)
        self.rows = rows
        pollShortcut = PollShortcut(room: room, runDeadline: input.deadline)
        self.watch = watch
        // A forecast poll goes out when the room says, not when its turn comes.
        if pacer != nil { pollShortcut = nil }
    }

    /// The run's clock: the time of the last event.
    var now: RunInstant { engine.calendar.now }

    /// Runs until no visitor is left, or until `deadline` (`run.duration`), or until the stop
    /// signal is heard.
    mutating func run(until deadline: RunInstant?) throws {
        // Done when nobody is left: what the calendar may still hold then is stale (the give-up
        // of a visitor who passed first, a tombstone's last event), and must not stretch the run.
        while !engine.isDone {
            let nextEvent = engine.calendar.nextTime
            let nextArrival = engine.nextArrivalAt
            let nextRelease = paced.first?.leaves
            // Arrivals at the same instant as an event go first: they were "scheduled" earlier;
            // then requests whose turn has come (`run.maxRequestRate`).
            guard let next = Self.earliest(nextEvent, nextArrival, nextRelease) else { break }
            // Every second before the next event is over: its windows are judged first, so a
            // guardrail stops the run at the same instant whatever the events' order.
            let judgedTo = deadline.map { min(next, $0) } ?? next
            if let stopAt = watch?.secondsOver(upTo: judgedTo) {
                engine.advanceClock(to: stopAt)
                try stop(reason: .guardrail)
                sampleRoomAtEnd()
                return
            }
            // Every second that ends before the next event is over: the room's figures too.
            sampleRoom(before: judgedTo)
            if let deadline, next > deadline {
                engine.advanceClock(to: deadline)
                try stop(reason: .runEnded)
                watch?.runEnded(at: deadline)
                sampleRoomAtEnd()
                return
            }
            if nextArrival == next {
                engine.advanceClock(to: next)
                try carryOut(engine.startNextArrival(at: next), mayAnswerLoad: true)
            } else if nextRelease == next, let turn = paced.popFirst() {
                engine.advanceClock(to: next)
                if let order = engine.turnCame(turn, at: next) { transmit(order, askedAt: turn.askedAt) }
            } else if let (time, event) = engine.nextEvent() {
                try handle(event, at: time)
            }
            eventsSincePublish += 1
            if eventsSincePublish >= Self.publishEvery {
                eventsSincePublish = 0
                publish()
                if stopSignal.reason != nil {
                    try stop(reason: .interrupted)
                    sampleRoomAtEnd()
                    return
                }
            }
        }
        let end = now
        watch?.runEnded(at: end)
        publish()
        sampleRoomAtEnd()
    }

    /// The earliest of the instants given. (An array of the three, `compactMap`ped, was two
    /// heap allocations per event: a fifth of a virtual run's allocations.)
    private static func earliest(_ a: RunInstant?, _ b: RunInstant?, _ c: RunInstant?) -> RunInstant? {
        var earliest = a
        if let b, earliest.map({ b < $0 }) ?? true { earliest = b }
        if let c, earliest.map({ c < $0 }) ?? true { earliest = c }
        return earliest
    }

    /// Samples the room at the end of every second that ends at or before `instant`.
    private mutating func sampleRoom(before instant: RunInstant) {
        while instant >= nextRoomSample {
            let second = Int(nextRoomSample.sinceOrigin.components.seconds) - 1
            let (queueLength, released) = room.model.queueFigures(at: nextRoomSample - .nanoseconds(1))
            roomSeries.set(second: second, .init(queueLength: queueLength, released: released))
            nextRoomSample = nextRoomSample + .seconds(1)
        }
    }

    /// The last, partial second: the room as the run leaves it.
    private mutating func sampleRoomAtEnd() {
        sampleRoom(before: now)
        let (queueLength, released) = room.model.queueFigures(at: now)
        roomSeries.set(
            second: Int(nextRoomSample.sinceOrigin.components.seconds) - 1,
            .init(queueLength: queueLength, released: released))
    }

    private mutating func handle(_ event: EngineEvent, at now: RunInstant) throws {
        switch event {
        case .wake(let slot, let atTurn):
            if let shortcut = pollShortcut, !atTurn,
                case let giveUpAt = engine.giveUpInstant(ofSlot: slot),
                let skipped = engine.withMachine(
                    inSlot: slot, { shortcut.skipForecastPolls(&$0, at: now, giveUpAt: giveUpAt, sent: &$1) }),
                let jump = skipped
            {
                take(jump, slot: slot)
                return
            }
            // A wake-up whose polls could not be skipped sends a poll that is not forecast either.
            try carryOut(engine.wake(slot: slot, at: now), mayAnswerLoad: false)
        case .response(let slot, let response):
            try carryOut(engine.received(response, slot: slot, serial: 0, at: now), mayAnswerLoad: true)
        case .failure(let slot, let error):
            try carryOut(engine.failed(error, slot: slot, serial: 0, at: now), mayAnswerLoad: true)
        case .deadline:
            // The virtual network answers by the deadline itself (`send`): no deadline events.
            preconditionFailure("a virtual engine tracks no request deadlines")
        case .giveUp, .resume:
            try carryOut(engine.behaviourEvent(event, at: now), mayAnswerLoad: true)
        }
    }

    /// Carries out what the engine asked for. A queue-page load whose answer the room
    /// forecasts is answered here (the poll shortcut) instead of being sent.
    private mutating func carryOut(_ action: consuming VisitorEngine.Action, mayAnswerLoad: Bool) throws {
        let now = self.now
        switch consume action {
        case .none:
            return
        case .finished(let visitor):
            watch?.visitorFinished(visitor)
            try rows.accept(visitor)
        case .sendLater(let turn):
            paced.append(turn)
        case .send(let order):
            if mayAnswerLoad, let shortcut = pollShortcut, order.kind == .queuePage,
                case let giveUpAt = engine.giveUpInstant(ofSlot: order.slot),
                let answered = engine.withMachine(
                    inSlot: order.slot,
                    { machine, sent in
                        machine.readPhase() == .inQueue
                            ? shortcut.answerForecastLoad(&machine, at: now, giveUpAt: giveUpAt, sent: &sent) : nil
                    }),
                let jump = answered
            {
                take(jump, slot: order.slot)
                return
            }
            transmit(order, askedAt: now)
        }
    }

    /// Moves the visitor to its first poll the shortcut could not answer.
    private mutating func take(_ jump: PollShortcut.Jump, slot: Int) {
        skippedPolls += jump.answeredPolls
        engine.schedule(.wake(slot: slot, atTurn: jump.turnCame), at: jump.nextPollAt)
    }

    /// Hands the request to the room now; its answer (or the client's timeout) becomes an event
    /// after the modelled delay. `askedAt`: when the visitor sent it; a request that waited for
    /// its turn (`run.maxRequestRate`) has waited that long of its timeout (the engine let it
    /// go only with time left, `turnCame`).
    private mutating func transmit(_ order: VisitorEngine.RequestOrder, askedAt: RunInstant) {
        // Answers arrive whole here: the timeout is the longest wait for one.
        let (now, slot) = (self.now, order.slot)
        let timeoutAt = askedAt + order.timeout.answerBound(sentAt: askedAt)
        let timeout = timeoutAt - now
        switch room.handle(order.request.head, body: order.request.body ?? [], at: now) {
        case .response(let head, let body, let delay):
            if delay >= timeout {
                engine.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
            } else {
                engine.schedule(.response(slot: slot, IncomingResponse(head: head, body: body)), at: now + delay)
            }
        case .reset(let after):
            if after >= timeout {
                engine.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
            } else {
                engine.schedule(.failure(slot: slot, .connectionReset), at: now + after)
            }
        case .noAnswer:
            engine.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
        }
    }

    /// Ends every visitor still in flight (`VisitorEngine.stop`).
    private mutating func stop(reason: StopReason) throws {
        var rows = self.rows
        var watch = self.watch
        try engine.stop(at: now, reason: reason, dueArrivals: false) {
            watch?.visitorFinished($0)
            try rows.accept($0)
        }
        self.rows = rows
        self.watch = watch
        publish()
    }

    private func publish() {
        progress.publish(engine.progress(at: now))
    }
}
