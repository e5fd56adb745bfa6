import QueueClientCore

/// The mutable state of one virtual run: the event loop, the visitors in flight, the plan's
/// next arrival and the progress counters.
struct Simulation {
    typealias Event = VirtualClockRunner.Event
    typealias Slot = VirtualClockRunner.Slot

    let run: PreparedRun
    let room: WaitingRoomService
    let recorder: Recorder
    let tokenJudge: TokenJudge
    let status: LiveRunStatus
    let stopSignal: RunStopSignal

    var loop = DiscreteEventLoop<Event>()
    var slots = SlotStore<Slot>()
    var plan: VisitorPlan
    var pendingArrival: PlannedVisitor?
    let rows: RowWriter
    /// Requests sent per second, kept here while the row writer owns the recorder and handed
    /// to it when the run ends.
    var requestsPerSecond = PerSecondCounts()
    var progress = LiveRunStatus.Snapshot()
    var eventsSincePublish = 0
    var pollShortcut = true
    /// Polls the shortcut counted without handing them to the room.
    var skippedPolls = 0
    /// `run.duration` as an instant, once `run(until:)` is called.
    var runDeadline: RunInstant?

    init(
        run: PreparedRun, room: WaitingRoomService, recorder: Recorder, tokenJudge: TokenJudge,
        status: LiveRunStatus, stopSignal: RunStopSignal
    ) throws {
        self.run = run
        self.room = room
        self.recorder = recorder
        self.tokenJudge = tokenJudge
        self.status = status
        self.stopSignal = stopSignal
        plan = try run.makePlan()
        pendingArrival = try plan.next()
        rows = RowWriter(recorder: recorder, run: run, tokenJudge: tokenJudge)
        progress.planned = run.summary.visitorCount
    }

    /// Ends the row writer: the recorder has every row and request count afterwards. Call
    /// once `run(until:)` has returned; `abandonRowWriter` instead when it threw.
    mutating func finishRowWriter() throws {
        try rows.finish()
        for second in 0..<requestsPerSecond.count where requestsPerSecond[second] != 0 {
            recorder.recordRequests(requestsPerSecond[second], inSecond: second)
        }
        requestsPerSecond = PerSecondCounts()
    }

    func abandonRowWriter() {
        rows.abandon()
    }

    mutating func run(until deadline: RunInstant?) throws {
        runDeadline = deadline
        while true {
            let nextEvent = loop.nextTime
            let nextArrival = pendingArrival?.arrival
            // Arrivals at the same instant as an event go first: they were "scheduled" earlier.
            let next: RunInstant? =
                switch (nextEvent, nextArrival) {
                case (nil, nil): nil
                case (let event?, nil): event
                case (nil, let arrival?): arrival
                case (let event?, let arrival?): min(event, arrival)
                }
            guard let next else { break }
            if let deadline, next > deadline {
                loop.advance(to: deadline)
                try stopAll(reason: .runEnded)
                return
            }
            if let arrival = pendingArrival, arrival.arrival == next {
                loop.advance(to: next)
                pendingArrival = try plan.next()
                try arrive(arrival)
            } else if let (_, event) = loop.step() {
                try handle(event)
            }
            eventsSincePublish += 1
            if eventsSincePublish >= VirtualClockRunner.publishEvery {
                eventsSincePublish = 0
                publish()
                if stopSignal.reason != nil {
                    try stopAll(reason: .interrupted)
                    return
                }
            }
        }
        publish()
    }

    private mutating func arrive(_ visitor: PlannedVisitor) throws {
        progress.arrived += 1
        progress.started += 1
        var slot: Slot? = Slot(
            machine: VisitorMachine(configuration: run.visitorConfiguration(for: visitor)), index: visitor.index,
            arrival: visitor.arrival, groupIndex: visitor.groupIndex)
        let action = slot!.machine.start(at: loop.now)
        try carryOut(action, slot: &slot, number: nil, phaseBefore: .notStarted, mayAnswerLoad: true)
    }

    private mutating func handle(_ event: Event) throws {
        let number = event.slot
        // Optional, so that `carryOut` can move the visitor back into its slot without a copy.
        var slot: Slot? = slots.take(number)
        guard slot != nil else { return }
        let before = slot!.machine.phase
        let action: VisitorMachine.Action
        // A wake-up whose polls could not be skipped sends a poll that is not forecast either.
        var mayAnswerLoad = pollShortcut
        switch event {
        case .wake(_, let atTurn):
            if pollShortcut, !atTurn, let (nextPoll, turnCame) = skipForecastPolls(&slot!.machine) {
                slots.put(slot.take()!, at: number)
                loop.schedule(.wake(slot: number, atTurn: turnCame), at: nextPoll)
                return
            }
            mayAnswerLoad = false
            action = slot!.machine.waited(at: loop.now)
        case .response(_, let response): action = slot!.machine.received(response, at: loop.now)
        case .failure(_, let error): action = slot!.machine.failed(error, at: loop.now)
        }
        try carryOut(action, slot: &slot, number: number, phaseBefore: before, mayAnswerLoad: mayAnswerLoad)
    }

    /// Puts the visitor (back) in its slot and carries out what its machine asked for; a
    /// finished visitor gets its row and gives its slot up. `number` is nil for a visitor that
    /// has no slot yet. `slot` is moved out (left nil): a visitor is several hundred bytes
    /// and a dozen references, so a copy costs as much as some of the protocol work.
    private mutating func carryOut(
        _ action: VisitorMachine.Action, slot: inout Slot?, number: Int?, phaseBefore: VisitorPhase,
        mayAnswerLoad: Bool
    ) throws {
        let phaseAfter = slot!.machine.phase
        progress.phaseChanged(from: phaseBefore, to: phaseAfter)
        if case .finish(let result) = action {
            if let number { slots.release(number) }
            try finish(slot.take()!, result: result)
            return
        }
        // A queue-page load whose answer the room forecasts is answered here (poll shortcut).
        var nextPoll: (at: RunInstant, turnCame: Bool)?
        if mayAnswerLoad, pollShortcut, case .send = action, phaseAfter == .inQueue {
            nextPoll = answerForecastLoad(&slot!.machine)
        }
        let number = slots.place(slot.take()!, at: number)
        if let nextPoll {
            loop.schedule(.wake(slot: number, atTurn: nextPoll.turnCame), at: nextPoll.at)
            return
        }
        switch action {
        case .wait(let deadline):
            loop.schedule(.wake(slot: number), at: deadline)
        case .send(let request, let timeout):
            send(request, timeout: timeout, slot: number)
        case .finish:
            preconditionFailure("handled above")
        }
    }

    /// Hands the request to the room at once; its answer (or the client's timeout) becomes an
    /// event after the modelled delay.
    private mutating func send(_ request: OutgoingRequest, timeout: Duration, slot: Int) {
        let now = loop.now
        requestsPerSecond.add(at: Timeline.second(of: now))
        progress.requests += 1
        switch room.handle(request.head, body: request.body ?? [], at: now) {
        case .response(let head, let body, let delay):
            if delay >= timeout {
                loop.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
            } else {
                loop.schedule(.response(slot: slot, IncomingResponse(head: head, body: body)), at: now + delay)
            }
        case .reset(let after):
            if after >= timeout {
                loop.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
            } else {
                loop.schedule(.failure(slot: slot, .connectionReset), at: now + after)
            }
        case .noAnswer:
            loop.schedule(.failure(slot: slot, .timedOut), at: now + timeout)
        }
    }

    private mutating func finish(_ finished: Slot, result: VisitorResult) throws {
        try rows.record(
            RowWriter.Finished(
                index: finished.index, arrival: finished.arrival, groupIndex: finished.groupIndex, result: result))
        progress.finished += 1
        progress.outcomes[result.outcome, default: 0] += 1
    }

    /// Ends every visitor still in flight (in slot order, which is deterministic).
    private mutating func stopAll(reason: StopReason) throws {
        for number in 0..<slots.capacity {
            guard var slot = slots.take(number) else { continue }
            let wasInQueue = slot.machine.phase == .inQueue
            let result = slot.machine.stop(at: loop.now, reason: reason)
            if wasInQueue { progress.inQueue -= 1 }
            slots.release(number)
            try finish(slot, result: result)
        }
        publish()
    }

    private func publish() {
        var snapshot = progress
        snapshot.now = loop.now
        status.publish(snapshot)
    }
}
