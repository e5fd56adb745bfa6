import QueueClientCore

/// Carrying out what a visitor's machine asked for: the row of a finished visitor, a wake-up on
/// the calendar, or a request, with its serial, its deadline and its turn under
/// `run.maxRequestRate`; and a deadline's second look, by the kind of the request's timeout.
extension VisitorEngine {
    /// A request a visitor's machine asked to send, with what the adapter needs to route and
    /// shape it (whose it is, on which platform), so it never asks the engine back.
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
        /// The visitor's place in the plan and its group: whose connections it may ride.
        var visitor: VisitorRef
    }

    /// Whose a request is: the visitor's plan index, its group and the platform it runs as.
    /// 32 bits each, as in the slot (`InFlightVisitor`): it rides in every order.
    struct VisitorRef: Equatable {
        private let storedIndex: UInt32
        private let storedGroup: UInt32
        let platform: ClientPlatform
        var index: Int { Int(storedIndex) }
        var groupIndex: Int { Int(storedGroup) }

        init(index: Int, groupIndex: Int, platform: ClientPlatform) {
            storedIndex = UInt32(index)
            storedGroup = UInt32(groupIndex)
            self.platform = platform
        }
    }

    /// A request that waits for its turn under `run.maxRequestRate`.
    struct PacedRequest {
        var order: RequestOrder
        /// When its visitor asked for it: its timeout runs from then.
        var askedAt: RunInstant
        /// When its turn comes.
        var leaves: RunInstant
    }

    /// Runs one event through the visitor's machine, in its slot, and carries out what the
    /// machine asked for.
    mutating func advance(
        _ slot: Int, at now: RunInstant, _ event: (inout VisitorMachine) -> VisitorMachine.Action
    ) -> Action {
        // The phases, group and owner come out through locals, the action as the result: a tuple
        // of them all was copied and destroyed through the runtime's generic tuple witnesses.
        var (before, after, group) = (VisitorPhase.notStarted, VisitorPhase.notStarted, 0)
        var owner: VisitorRef?
        let action = slots.modify(slot) { visitor in
            before = visitor.machine.readPhase()
            let action = event(&visitor.machine)
            if case .send = action {
                visitor.requestSentAt = now
                owner = VisitorRef(
                    index: visitor.index, groupIndex: visitor.groupIndex,
                    platform: visitor.machine.configuration.group.platform)
            }
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
            return finishMachine(slot, result, at: now)
        case .wait(let deadline):
            calendar.schedule(.wake(slot: slot), at: deadline)
            return .none
        case .send(let request, let timeout):
            if !countsRequestsWhenSent { sent.count(inSecond: now.secondOfRun) }
            let serial = tracksRequestDeadlines ? awaitAnswer(slot: slot, timeout: timeout, sentAt: now) : 0
            return pace(
                RequestOrder(
                    slot: slot, serial: serial, request: request, timeout: timeout, kind: Self.kind(of: after),
                    visitor: owner!),
                at: now)
        }
    }

    /// The machine of the visitor in `slot` has its outcome: its row (or, for a visitor who
    /// passed and stays for its after-pass calls, its row while it stays).
    private mutating func finishMachine(_ slot: Int, _ result: VisitorResult, at now: RunInstant) -> Action {
        if behaviours != nil, result.outcome == .passed, let row = startAfterPass(slot: slot, result, at: now) {
            return .finished(row)
        }
        let visitor = slots.remove(slot)
        inFlight -= 1
        var finished = finish(
            visitor.index, arrival: visitor.arrival, groupIndex: visitor.groupIndex, result: result,
            afterlife: visitor.afterlife)
        finished.handshake = visitor.firstHandshake.handshake
        finished.spoken = visitor.spokenProtocols
        return .finished(finished)
    }

    /// The request a machine in `phase` (after the event that made it send) is sending.
    static func kind(of phase: VisitorPhase) -> RequestStatistics.Endpoint {
        switch phase {
        case .enqueueing: .enqueue
        case .protectedApi: .protectedApi
        case .inQueue, .notStarted, .finished: .queuePage
        }
    }

    // MARK: - Pacing

    /// Sends `order` now, or at its turn under `run.maxRequestRate`. Without a cap, every
    /// request goes when asked for (and was counted then).
    mutating func pace(_ order: consuming RequestOrder, at now: RunInstant) -> Action {
        guard let leaves = pacer?.reserve(at: now) else { return .send(order) }
        guard leaves > now else {
            countSent(order, at: now)
            return .send(order)
        }
        return .sendLater(PacedRequest(order: order, askedAt: now, leaves: leaves))
    }

    /// A paced request's turn has come at `now`: the order to hand to the network now, or nil
    /// when it no longer goes. On the wall clock, its visitor may have timed out, given up or
    /// been stopped meanwhile, and a turn after its deadline is ended by that deadline. On the
    /// virtual clock (no deadlines tracked) a turn after its timeout fails it at once; it was
    /// counted as sent, as it always was there.
    mutating func turnCame(_ paced: PacedRequest, at now: RunInstant) -> RequestOrder? {
        let (order, askedAt) = (paced.order, paced.askedAt)
        if tracksRequestDeadlines {
            guard awaits(slot: order.slot, serial: order.serial) else { return nil }
            if askedAt < now, order.timeout.firstDeadline(sentAt: askedAt) <= now { return nil }
            countSent(order, at: now)
            return order
        }
        countSent(order, at: now)
        let timeoutAt = askedAt + order.timeout.answerBound(sentAt: askedAt)
        guard askedAt == now || timeoutAt > now else {
            calendar.schedule(.failure(slot: order.slot, .timedOut), at: now)
            return nil
        }
        return order
    }

    /// Counts a request that goes at `now` after its turn under `run.maxRequestRate`.
    mutating func countSent(_ order: RequestOrder, at now: RunInstant) {
        let second = now.secondOfRun
        sent.count(inSecond: second)
        if order.afterPass { sent.countAfterPass(inSecond: second) }
    }

    // MARK: - Answers and deadlines

    /// Counts the answer (or failure) to the request of the visitor in `slot`, by the phase that
    /// sent it and the time since it was sent.
    mutating func countAnswer(slot: Int, status: RequestStatistics.Status, at now: RunInstant) {
        guard sent.keepsAnswers,
            let (phase, sentAt) = slots.modify(slot, { ($0.machine.readPhase(), $0.requestSentAt) })
        else { return }
        let elapsed = now.sinceOrigin - sentAt.sinceOrigin
        sent.answers.answered(
            Self.kind(of: phase), status: status, milliseconds: UInt64(max(0, elapsed.wholeMilliseconds)),
            inSecond: now.secondOfRun)
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
    mutating func takeAwaited(slot: Int, serial: UInt32) -> Bool {
        guard tracksRequestDeadlines else { return true }
        guard awaits(slot: slot, serial: serial) else { return false }
        awaitedSerials[slot] = 0
        return true
    }

    /// What a fired request deadline comes to (`deadlineFired`).
    enum DeadlineVerdict: Equatable {
        /// The request is no longer awaited (answered, given up, stopped): nothing to do.
        case stale
        /// The request's timeout runs on (it is making progress, or may wait longer): its next
        /// look is on the calendar.
        case extended
        /// The request has timed out: the adapter abandons it on the network and reports
        /// `failed(.timedOut, …)`.
        case expired
    }

    /// The deadline of request `serial` of the visitor in `slot` fired at `now`. The platform's
    /// timeouts run on once the request is on its connection (`lastProgress`: the instant its
    /// connection last moved, nil while it waits for one): an idle one looks again one limit
    /// after the last progress while the answer keeps coming; Chromium's waits until the
    /// visitor gives up; a whole-exchange one ends at its deadline.
    mutating func deadlineFired(
        slot: Int, serial: UInt32, at now: RunInstant, lastProgress: () -> RunInstant?
    ) -> DeadlineVerdict {
        guard awaits(slot: slot, serial: serial) else { return .stale }
        guard let last = lastProgress() else { return .expired }
        let timeout = awaitedTimeouts[slot]
        switch timeout.kind {
        case .wholeExchange:
            return .expired
        case .idle:
            let quiet = now - last
            guard quiet < timeout.limit else { return .expired }
            calendar.schedule(.deadline(slot: slot, serial: serial), at: now + (timeout.limit - quiet))
            return .extended
        case .connectThenUntil(let giveUpAt):
            guard now < giveUpAt else { return .expired }
            calendar.schedule(.deadline(slot: slot, serial: serial), at: giveUpAt)
            return .extended
        }
    }
}
