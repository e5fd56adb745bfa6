import QueueClientCore

/// Visitors who give up, come back and go on shopping (`patience`, `comeback`, `afterPass`),
/// on either clock: the engine schedules their `giveUp` and `resume` events beside the
/// machines' wake-ups, and the adapters only carry them. Visitors of groups without a
/// behaviour never reach this code (`behaviours` is nil, or their group's entry is empty).
///
/// A visitor who gives up leaves its slot as a *tombstone* (a finished machine, no afterlife)
/// until the one event it still had coming (a wake-up, or the answer to its request in flight)
/// arrives and frees it: slots are reused, and that event must not reach another visitor. On
/// the wall clock a request in flight is simply no longer awaited, and the slot is freed at once.
extension VisitorEngine {
    /// A `giveUp` or `resume` event of the calendar.
    mutating func behaviourEvent(_ event: EngineEvent, at now: RunInstant) -> Action {
        switch event {
        case .giveUp(let slot, let serial): giveUp(slot: slot, serial: serial, at: now)
        case .resume(let slot, let serial): resume(slot: slot, serial: serial, at: now)
        case .wake, .deadline, .response, .failure: preconditionFailure("not a behaviour event")
        }
    }

    /// When the visitor in `slot` gives up, while its patience runs (nil otherwise): the poll
    /// shortcut answers no poll whose answer would come at or after it.
    mutating func giveUpInstant(ofSlot slot: Int) -> RunInstant? {
        guard behaviours != nil else { return nil }
        return slots.modify(slot) { visitor in
            visitor.behaviourSerial != 0 && visitor.afterlife?.isShopping != true ? visitor.giveUpAt : nil
        } ?? nil
    }

    // MARK: - Patience

    /// The visitor has just landed on the queue page (the pre-queue included): its patience
    /// starts, unless it already runs (a restart goes back through the enqueue).
    mutating func startPatience(slot: Int, at now: RunInstant) {
        guard let behaviours else { return }
        let serial = nextBehaviourSerial()
        let deadline: RunInstant? =
            slots.modify(slot) { visitor in
                guard visitor.behaviourSerial == 0 else { return nil }
                // A no-show leaves as soon as it has its queue number, whatever its patience.
                let noShow =
                    visitor.comebacks == 0 && behaviours.isNoShow(group: visitor.groupIndex, visitor: visitor.index)
                guard
                    let patience = noShow
                        ? Duration.zero
                        : behaviours.patience(
                            group: visitor.groupIndex, visitor: visitor.index, attempt: visitor.comebacks)
                else { return nil }
                visitor.behaviourSerial = serial
                visitor.giveUpAt = now + patience
                return visitor.giveUpAt
            } ?? nil
        if let deadline { calendar.schedule(.giveUp(slot: slot, serial: serial), at: deadline) }
    }

    private mutating func giveUp(slot: Int, serial: UInt32, at now: RunInstant) -> Action {
        guard let behaviours else { return .none }
        let gaveUp =
            slots.modify(slot) { visitor -> (before: VisitorPhase, result: VisitorResult, group: Int)? in
                let phase = visitor.machine.readPhase()
                guard visitor.behaviourSerial == serial, phase == .inQueue || phase == .enqueueing else { return nil }
                visitor.behaviourSerial = 0
                return (phase, visitor.machine.abandon(at: now), visitor.groupIndex)
            } ?? nil
        guard var gaveUp else { return .none }
        let noShow = isNoShow(slot: slot, behaviours: behaviours)
        if noShow { gaveUp.result.errorMessage = Self.noShowCause }
        progress.phaseChanged(from: gaveUp.before, to: .finished, group: gaveUp.group)
        // The tombstone keeps what the row and a comeback need, until its last event frees it.
        var visitor = slots.modify(slot) { visitor in
            let copy = visitor
            visitor.afterlife = nil
            return copy
        }!
        if tracksRequestDeadlines, slot < awaitedSerials.count, awaitedSerials[slot] != 0 {
            awaitedSerials[slot] = 0
            _ = slots.remove(slot)
        }
        var earlier =
            visitor.earlierAttempts
            ?? EarlierAttempts(
                firstStart: gaveUp.result.marks.started, comebacks: 0, attempts: 0, polls: 0, restarts: 0, requests: 0)
        if !noShow,
            let delay = behaviours.comebackDelay(
                group: visitor.groupIndex, visitor: visitor.index, abandonment: earlier.comebacks)
        {
            earlier.pending = gaveUp.result
            earlier.comebacks += 1
            visitor.machine = VisitorMachine(configuration: visitor.machine.configuration)
            visitor.afterlife = .comingBack(earlier)
            visitor.requestSentAt = now
            let serial = nextBehaviourSerial()
            visitor.behaviourSerial = serial
            let newSlot = slots.insert(visitor)
            calendar.schedule(.resume(slot: newSlot, serial: serial), at: now + delay)
            return .none
        }
        inFlight -= 1
        var finished = finish(
            visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: gaveUp.result,
            afterlife: visitor.afterlife)
        finished.handshake = visitor.firstHandshake.handshake
        finished.spoken = visitor.spokenProtocols
        return .finished(finished)
    }

    /// visitors.csv's `error` for a no-show (its outcome is `abandoned`).
    static var noShowCause: String { "no-show: left the queue page before its turn" }

    /// Whether the visitor in `slot`, on its first attempt, is one of its group's no-shows.
    private mutating func isNoShow(slot: Int, behaviours: VisitorBehaviourBook) -> Bool {
        slots.modify(slot) { visitor in
            visitor.comebacks == 0 && behaviours.isNoShow(group: visitor.groupIndex, visitor: visitor.index)
        } ?? false
    }

    // MARK: - Coming back, shopping

    private mutating func resume(slot: Int, serial: UInt32, at now: RunInstant) -> Action {
        guard
            let shopping = slots.modify(
                slot,
                { visitor -> Bool? in
                    guard visitor.behaviourSerial == serial else { return nil }
                    visitor.behaviourSerial = 0
                    return visitor.afterlife?.isShopping == true
                }) ?? nil
        else { return .none }
        guard shopping else {
            // It reopens the app: the SDK's `run` again, a new enqueue. The attempt it gave up
            // joins the earlier ones.
            slots.modify(slot) { visitor in
                guard case .comingBack(var earlier) = visitor.afterlife, let pending = earlier.pending else { return }
                earlier.pending = nil
                earlier.add(pending)
                visitor.afterlife = .comingBack(earlier)
            }
            return advance(slot, at: now) { $0.start(at: now) }
        }
        return callAfterPass(slot: slot, at: now)
    }

    /// The visitor in `slot` has passed: unless a no-show, it stays for its after-pass calls,
    /// the first after a think time. Returns its row then (nil: the caller finishes it as usual).
    mutating func startAfterPass(slot: Int, _ result: VisitorResult, at now: RunInstant) -> FinishedVisitor? {
        guard let behaviours,
            let (group, index, afterlife, url, settings) = slots.modify(
                slot,
                {
                    (
                        $0.groupIndex, $0.index, $0.afterlife, $0.machine.configuration.group.protectedApiURL,
                        $0.machine.configuration.group
                    )
                }),
            var draws = behaviours.afterPass(group: group, visitor: index),
            // The app's own stack's head (URLSession's or OkHttp's), as the visitor's first call.
            let url, let machine = ProtectedApiMachine(apiURL: url, group: settings)
        else { return nil }
        let think = behaviours.thinkTime(group: group, random: &draws.random)
        let serial = nextBehaviourSerial()
        let row = slots.modify(slot) { visitor in
            let arrival = visitor.arrival
            visitor.behaviourSerial = serial
            visitor.afterlife = .shopping(
                AfterPassCalls(
                    machine: machine, token: result.queueitToken, callsLeft: draws.calls, random: draws.random))
            return arrival
        }!
        calendar.schedule(.resume(slot: slot, serial: serial), at: now + think)
        var finished = finish(index, arrival: row, groupIndex: group, result: result, afterlife: afterlife)
        if let (handshake, spoken) = slots.modify(slot, { ($0.firstHandshake.handshake, $0.spokenProtocols) }) {
            (finished.handshake, finished.spoken) = (handshake, spoken)
        }
        return finished
    }

    /// The next after-pass call: presents the token until the connector has set its cookie.
    private mutating func callAfterPass(slot: Int, at now: RunInstant) -> Action {
        let action =
            slots.modify(slot) { visitor -> ProtectedApiMachine.Action? in
                guard case .shopping(var calls) = visitor.afterlife else { return nil }
                let token = calls.machine.cookies.isEmpty ? calls.token : nil
                let action = calls.machine.callAfterPass(presenting: token, at: now)
                visitor.afterlife = .shopping(calls)
                visitor.requestSentAt = now
                return action
            } ?? nil
        guard let action else { return .none }
        return carryOutAfterPass(action, slot: slot, at: now)
    }

    private mutating func carryOutAfterPass(_ action: ProtectedApiMachine.Action, slot: Int, at now: RunInstant)
        -> Action
    {
        switch action {
        case .send(let request):
            if !countsRequestsWhenSent {
                let second = now.secondOfRun
                sent.count(inSecond: second)
                sent.countAfterPass(inSecond: second)
            }
            let timeout = afterPassTimeout(slot: slot, at: now)
            let serial = tracksRequestDeadlines ? awaitAnswer(slot: slot, timeout: timeout, sentAt: now) : 0
            let owner = slots.modify(slot) {
                VisitorRef(
                    index: $0.index, groupIndex: $0.groupIndex, platform: $0.machine.configuration.group.platform)
            }!
            return pace(
                RequestOrder(
                    slot: slot, serial: serial, request: request, timeout: timeout, kind: .protectedApi,
                    afterPass: true, visitor: owner),
                at: now)
        case .finish, .runWaitingRoom:
            // One call done (reached or failed: the visitor has passed either way; a failure
            // counts in the protected API's answers). The next after a think time, or gone.
            guard let behaviours,
                let next = slots.modify(
                    slot,
                    { visitor -> Duration? in
                        guard case .shopping(var calls) = visitor.afterlife else { return nil }
                        calls.callsLeft -= 1
                        guard calls.callsLeft > 0 else { return nil }
                        let think = behaviours.thinkTime(group: visitor.groupIndex, random: &calls.random)
                        visitor.afterlife = .shopping(calls)
                        return think
                    }) ?? nil
            else {
                _ = slots.remove(slot)
                inFlight -= 1
                return .none
            }
            let serial = nextBehaviourSerial()
            slots.modify(slot) { $0.behaviourSerial = serial }
            calendar.schedule(.resume(slot: slot, serial: serial), at: now + next)
            return .none
        }
    }

    /// The app's own API call: the platform's protected API timeout, as the hybrid flow's.
    private mutating func afterPassTimeout(slot: Int, at now: RunInstant) -> RequestTimeout {
        slots.modify(slot) { $0.machine.configuration.timeout(for: .protectedApi, giveUpAt: now) }
            ?? RequestTimeout(limit: .seconds(10), kind: .wholeExchange)
    }

    /// An answer, failure or wake-up for a slot that is a tombstone or a shopper (nil: neither,
    /// the machine takes it).
    mutating func afterlifeEvent(
        slot: Int, response: IncomingResponse?, error: TransportError?, at now: RunInstant
    ) -> Action? {
        enum Kind { case machine, tombstone, shopper }
        let kind =
            slots.modify(slot) { visitor -> Kind in
                guard visitor.machine.readPhase() == .finished else { return .machine }
                return visitor.afterlife?.isShopping == true ? .shopper : .tombstone
            } ?? .machine
        switch kind {
        case .machine:
            return nil
        case .tombstone:
            _ = slots.remove(slot)
            return Action.none
        case .shopper:
            let elapsed = now - (slots.modify(slot) { $0.requestSentAt } ?? now)
            let status: RequestStatistics.Status = response.map { .init(code: $0.head.status.code) } ?? .init(error!)
            if sent.keepsAnswers {
                sent.answers.answered(
                    .protectedApi, status: status, milliseconds: UInt64(max(0, elapsed.wholeMilliseconds)),
                    inSecond: now.secondOfRun)
            }
            let action =
                slots.modify(slot) { visitor -> ProtectedApiMachine.Action? in
                    guard case .shopping(var calls) = visitor.afterlife else { return nil }
                    let action =
                        if let response { calls.machine.received(response, at: now) } else {
                            calls.machine.failed(error!, at: now)
                        }
                    visitor.afterlife = .shopping(calls)
                    if case .send = action { visitor.requestSentAt = now }
                    return action
                } ?? nil
            guard let action else { return Action.none }
            return carryOutAfterPass(action, slot: slot, at: now)
        }
    }

    private mutating func nextBehaviourSerial() -> UInt32 {
        lastBehaviourSerial &+= 1
        if lastBehaviourSerial == 0 { lastBehaviourSerial = 1 }
        return lastBehaviourSerial
    }
}

extension InFlightVisitor {
    /// Attempts so far before this one (0 on the first).
    var comebacks: Int { earlierAttempts?.comebacks ?? 0 }

    var earlierAttempts: EarlierAttempts? {
        if case .comingBack(let earlier) = afterlife { return earlier }
        return nil
    }

    var isComingBack: Bool { earlierAttempts != nil }

    /// A visitor who gave up and has not reopened the app yet, when the run stops: its row is
    /// the attempt it gave up (`abandoned`), the comeback that never came not counted.
    var rowBeforeItsComeback: (result: VisitorResult, earlier: Afterlife)? {
        guard var earlier = earlierAttempts, let pending = earlier.pending else { return nil }
        earlier.pending = nil
        earlier.comebacks -= 1
        return (pending, .comingBack(earlier))
    }
}

extension Afterlife {
    var isShopping: Bool {
        if case .shopping = self { return true }
        return false
    }
}

extension EarlierAttempts {
    mutating func add(_ result: VisitorResult) {
        if let entered = result.marks.queueEntered {
            stays.append(QueueStay(entered: entered, left: result.marks.ended))
        }
        attempts += result.attempts
        polls += result.polls
        restarts += result.restarts
        requests += result.requests
    }

    /// Adds the earlier attempts' counts to the last attempt's row.
    func fold(into finished: inout FinishedVisitor) {
        finished.result.attempts += attempts
        finished.result.polls += polls
        finished.result.restarts += restarts
        finished.result.requests += requests
        finished.comebacks = comebacks
        finished.firstStart = firstStart
        finished.earlierStays = stays
    }
}
