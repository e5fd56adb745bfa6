import DequeModule
import QueueClientCore

/// A virtual run's `VisitorEngine` on simulated time: the calendar's clock is the run's
/// clock, and every request is answered by the in-process room at once, its answer (or the
/// client's timeout) put on the calendar after the modelled delay. No task or thread per
/// visitor: a visitor is a machine in a slot, an event a `(time, sequence, payload)` entry.
struct VirtualDriver {
    let room: WaitingRoomService
    let progress: RunProgress
    let stopSignal: RunStopSignal

    var engine: VisitorEngine
    let rows: RowWriter
    var eventsSincePublish = 0
    /// Skip queue-page polls whose answers the room forecasts (`PollShortcut`); nil turns it off.
    var pollShortcut: PollShortcut?
    /// Polls the shortcut counted without handing them to the room.
    var skippedPolls = 0
    /// The room's queue at the end of each second so far (metrics.prom), and the end of the
    /// next second to sample.
    private(set) var roomSeries = RoomSeries()
    private var nextRoomSample = RunInstant.origin + .seconds(1)
    /// The scenario's windowed thresholds (guardrails), judged second by second; nil without any.
    var guardrails: GuardrailMonitor?
    /// `run.maxRequestRate`: requests wait for their turn here, in the order they asked.
    var pacer: RequestPacer?
    private var paced: Deque<(leaves: RunInstant, askedAt: RunInstant, order: VisitorEngine.RequestOrder)> = []

    init(
        run: PreparedRun, room: WaitingRoomService, recorder: Recorder, tokenJudge: TokenJudge,
        progress: RunProgress, stopSignal: RunStopSignal, rowsOnTheEngineThread: Bool = false
    ) throws {
        self.room = room
        self.progress = progress
        self.stopSignal = stopSignal
        engine = try VisitorEngine(
            plan: run.makePlan(), templates: run.groupTemplates, tracksRequestDeadlines: false,
            behaviours: VisitorBehaviourBook(scenario: run.scenario))
        rows = RowWriter(
            recorder: recorder, run: run, tokenJudge: tokenJudge, onTheCallersThread: rowsOnTheEngineThread)
        pollShortcut = PollShortcut(room: room, runDeadline: run.scenario.run.duration.map { .origin + $0 })
        guardrails = GuardrailMonitor(
            thresholds: run.scenario.thresholds, groupNames: run.groupNames,
            waitCap: .wait(maxWait: run.scenario.client.maxWait, runDuration: run.scenario.run.duration))
        if let rate = run.scenario.run.maxRequestRate {
            pacer = RequestPacer(perSecond: rate, shares: run.options.shard.count)
            engine.countsRequestsWhenSent = true
            // A forecast poll goes out when the room says, not when its turn comes.
            pollShortcut = nil
        }
    }

    /// The run's clock: the time of the last event.
    var now: RunInstant { engine.calendar.now }

    /// Ends the row writer: the recorder has every row and request count afterwards. Call
    /// once `run(until:)` has returned; `abandonRowWriter` instead when it threw.
    func finishRowWriter(into recorder: Recorder) throws {
        try rows.finish()
        let requestsPerSecond = engine.sent.perSecond
        for second in 0..<requestsPerSecond.count where requestsPerSecond[second] != 0 {
            recorder.recordRequests(requestsPerSecond[second], inSecond: second)
        }
        recorder.recordAfterPassRequests(engine.sent.afterPassPerSecond)
        if engine.sent.keepsAnswers { recorder.recordAnswers(engine.sent.answers) }
        recorder.recordRoomSeries(roomSeries)
    }

    func abandonRowWriter() {
        rows.abandon()
    }

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
            if let trip = guardrails?.advance(to: judgedTo) {
                engine.advanceClock(to: trip.at)
                try stop(reason: .guardrail)
                sampleRoomAtEnd()
                return
            }
            // Every second that ends before the next event is over: the room's figures too.
            sampleRoom(before: judgedTo)
            if let deadline, next > deadline {
                engine.advanceClock(to: deadline)
                try stop(reason: .runEnded)
                _ = guardrails?.finish(at: deadline)
                sampleRoomAtEnd()
                return
            }
            if nextArrival == next {
                engine.advanceClock(to: next)
                try carryOut(engine.startNextArrival(at: next), mayAnswerLoad: true)
            } else if nextRelease == next, let turn = paced.popFirst() {
                engine.advanceClock(to: next)
                transmit(turn.order, askedAt: turn.askedAt)
            } else if let (time, event) = engine.nextEvent() {
                try handle(event, at: time)
            }
            eventsSincePublish += 1
            if eventsSincePublish >= VirtualClockRunner.publishEvery {
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
        _ = guardrails?.finish(at: end)
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
            guardrails?.record(WindowSample(visitor))
            try rows.record(visitor)
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
            send(order)
        }
    }

    /// Moves the visitor to its first poll the shortcut could not answer.
    private mutating func take(_ jump: PollShortcut.Jump, slot: Int) {
        skippedPolls += jump.answeredPolls
        engine.schedule(.wake(slot: slot, atTurn: jump.turnCame), at: jump.nextPollAt)
    }

    /// Hands the request to the room at once; its answer (or the client's timeout) becomes an
    /// event after the modelled delay.
    private mutating func send(_ order: VisitorEngine.RequestOrder) {
        let now = self.now
        if let leaves = pacer?.reserve(at: now), leaves > now {
            paced.append((leaves, now, order))
            return
        }
        transmit(order, askedAt: now)
    }

    /// Hands the request to the room now. `askedAt`: when the visitor sent it; a request that
    /// waited for its turn (`run.maxRequestRate`) has waited that long of its timeout.
    private mutating func transmit(_ order: VisitorEngine.RequestOrder, askedAt: RunInstant) {
        // Answers arrive whole here: the timeout is the longest wait for one.
        let (now, slot) = (self.now, order.slot)
        if pacer != nil { engine.countSent(order, at: now) }
        let timeoutAt = askedAt + order.timeout.answerBound(sentAt: askedAt)
        // A request whose turn came after its timeout never leaves (one sent at once always
        // reaches the room, as it did before the cap existed, even with no time left).
        guard askedAt == now || timeoutAt > now else {
            engine.schedule(.failure(slot: slot, .timedOut), at: now)
            return
        }
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
        let rows = rows
        var guardrails = self.guardrails
        try engine.stop(at: now, reason: reason, dueArrivals: false) {
            guardrails?.record(WindowSample($0))
            try rows.record($0)
        }
        self.guardrails = guardrails
        publish()
    }

    private func publish() {
        progress.publish(engine.progress(at: now))
    }
}
