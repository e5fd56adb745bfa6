import QueueClientCore

/// The embedded waiting room's rules: pure state over an injected time, no I/O, no clock.
///
/// Every visitor admitted by `enqueue` gets a *ticket* (its index in enqueue order, encoded in
/// its queue id). A ticket that must wait gets a *slot* (its place in release order, the queue
/// number − 1). Visitors arriving before `eventStart` wait in a pre-queue without slots; the
/// first call at or after `eventStart` shuffles them (seeded) into the first slots, and later
/// arrivals take the following slots first come, first served. Slot release times follow
/// `ReleaseSchedule` (smooth outflow). Per visitor the model keeps 8 bytes plus 8 per slot.
package struct WaitingRoomModel: Sendable {
    package enum EnqueueDecision: Sendable, Equatable {
        /// The visitor must watch the queue page.
        case queued(ticket: Int, queueId: String)
        /// The visitor passes at once with this token (`safetynet`, `disabled`, `idle`, `afterevent`).
        case passed(ticket: Int, queueId: String, redirectType: RoomMode, token: String)
        /// Invite-only room: no known enqueue key and no valid enqueue token.
        case refused(reason: String)
    }

    package struct QueuePosition: Sendable, Equatable {
        /// 1 for the next visitor to be released.
        package var position: Int
        package var usersAhead: Int
        /// The time until `releaseAt`, the visitor's turn by the release schedule; users ahead ÷
        /// outflow when no turn is scheduled. The queue page's `Retry-After` is this, rounded up
        /// and capped (so the two never disagree).
        package var expectedWait: Duration
        /// When this visitor's turn comes if the script holds; nil if it never comes.
        package var releaseAt: RunInstant?
    }

    package enum QueuePageState: Sendable, Equatable {
        /// Before event start: no place yet (the pre-queue is shuffled at start).
        case preQueue(eventStartsIn: Duration)
        case waiting(QueuePosition)
        /// Send the visitor to the target with this token.
        case yourTurn(redirectType: RoomMode, token: String)
        /// The queue id was redirected `maxRedirectsPerQueueId` times already (Queue-it's
        /// "exceeded max redirect count").
        case redirectLimitExceeded
        /// The visitor's turn came longer than `queueNumberValidity` ago: the turn is lost.
        case queueNumberExpired
        /// An invite-only room let the visitor enqueue without a key or token; its queue page
        /// wants a configured invite code (`code=`) first.
        case refused(reason: String)
    }

    struct Ticket: Sendable {
        static let passedDirectly: Int32 = -1
        static let inPreQueue: Int32 = -2
        var slot: Int32
        var redirects: UInt8
        /// For tickets that passed at enqueue, the redirect type they passed with.
        var directType: RoomMode?
        /// Enqueued in an invite-only room without key or token: waits for an invite code.
        var awaitingInviteCode = false
        /// Why the ticket's turn is lost for good, once it is.
        var lost: TurnLoss?
    }

    package let configuration: WaitingRoomConfiguration
    private let timeline: ModeTimeline
    let schedule: ReleaseSchedule
    private let queueIds: QueueIdCodec
    private var enqueueTokens: EnqueueTokenVerifier
    /// The secret key's HMAC pads, hashed once: the room signs a token for every visitor.
    private let signingKey: PreparedHMAC
    var tickets: [Ticket] = []
    /// Releasing time at which each slot is released; non-decreasing by construction.
    var slotReleasingTimes: [Int64] = []
    private var preQueue: [Int32] = []
    private var preQueueSealed = false
    private var recentArrivals = ArrivalRateWindow()
    private let inviteCodes: Set<String>
    /// `abandonedTurns: skipped` only (nil otherwise): who left, and whose turn it is.
    var skipping: SkippedTurns?
    /// What the rules imported from a Queue-it event did (run.json's `room`).
    package internal(set) var ruleCounts = RoomRuleCounts()
    /// `uniqueKeys`: the enqueue keys admitted so far.
    var usedEnqueueKeys: Set<String> = []
    /// `safetyNet: burst`: the releasing time of the last pass-through, which took a turn.
    var lastPassThroughTurn: Int64?
    /// `safetyNet: mixed`: pass-throughs in the trailing 60 s, and (skipping turns) releases.
    var recentPassThroughs = ArrivalRateWindow()
    var recentSkippingReleases = ArrivalRateWindow()

    package init(configuration: WaitingRoomConfiguration) {
        self.configuration = configuration
        let settings = configuration.settings
        timeline = ModeTimeline(baseMode: settings.mode, faults: settings.faults)
        schedule = ReleaseSchedule(
            timeline: timeline, eventStart: settings.eventStart.wholeNanoseconds, outflow: settings.outflow)
        queueIds = QueueIdCodec(seed: configuration.seed)
        signingKey = PreparedHMAC(key: settings.secretKey)
        inviteCodes = Set(settings.inviteCodes)
        enqueueTokens = EnqueueTokenVerifier(
            secretKey: settings.secretKey, customerId: configuration.customerId,
            waitingRoomId: configuration.waitingRoomId)
        if settings.abandonedTurns == .skipped { skipping = SkippedTurns() }
    }

    /// How long a visitor on the queue page may stay silent before a room that skips turns
    /// treats it as gone: two of the longest `Retry-After` (30 s) the room asks for, so a visitor
    /// still polling is never taken for gone, even with one poll lost or late.
    package static let silenceBeforeGone = Duration.seconds(60)

    /// Whether turns of visitors who left go to the next visitor (their release instants then
    /// move, so polls cannot be forecast).
    package var skipsTurns: Bool { skipping != nil }

    package var ticketCount: Int { tickets.count }

    package func mode(at now: RunInstant) -> RoomMode { timeline.mode(atNanoseconds: now.wholeNanoseconds) }

    package func queueId(ofTicket ticket: Int) -> String { queueIds.queueId(ofTicket: ticket) }

    package func ticket(forQueueId queueId: String) -> Int? {
        queueIds.ticket(forQueueId: queueId, ticketCount: tickets.count)
    }

    package func ticket(for queueId: PageQueueId) -> Int? {
        switch queueId {
        case .uuid(let high, let low): queueIds.ticket(forUUIDHigh: high, low: low, ticketCount: tickets.count)
        case .text(let text): ticket(forQueueId: text)
        }
    }

    // MARK: Enqueue

    package mutating func enqueue(enqueueKey: String?, enqueueToken: String?, at now: RunInstant) -> EnqueueDecision {
        sealPreQueueIfDue(at: now)
        advanceSkippedTurns(atNanoseconds: now.wholeNanoseconds)
        let ticketsBefore = tickets.count
        defer { if tickets.count > ticketsBefore { heard(ticket: ticketsBefore, atNanoseconds: now.wholeNanoseconds) } }
        var awaitingInviteCode = false
        if configuration.settings.inviteOnly, let reason = inviteRefusal(key: enqueueKey, token: enqueueToken, at: now)
        {
            // With invite codes, a visitor with neither key nor token enqueues; the code comes
            // on the queue URL (Android's SDK adds it there), and the queue page checks it.
            let bringsNothing = (enqueueKey ?? "").isEmpty && (enqueueToken ?? "").isEmpty
            guard bringsNothing, !inviteCodes.isEmpty else { return .refused(reason: reason) }
            awaitingInviteCode = true
        }
        defer { if awaitingInviteCode { tickets[tickets.count - 1].awaitingInviteCode = true } }
        let time = now.wholeNanoseconds
        let arrivalsInWindow = recentArrivals.record(atNanoseconds: time)
        let ticketIndex = tickets.count
        let queueId = queueIds.queueId(ofTicket: ticketIndex)
        let mode = timeline.mode(atNanoseconds: time)
        if !mode.releasesQueue {
            tickets.append(Ticket(slot: Ticket.passedDirectly, redirects: 1, directType: mode))
            return .passed(ticket: ticketIndex, queueId: queueId, redirectType: mode, token: token(queueId, mode, now))
        }
        if time < schedule.eventStart {
            tickets.append(Ticket(slot: Ticket.inPreQueue, redirects: 0))
            preQueue.append(Int32(ticketIndex))
            return .queued(ticket: ticketIndex, queueId: queueId)
        }
        if mode == .safetynet, safetyNetLetsThrough(arrivalsInWindow: arrivalsInWindow, atNanoseconds: time) {
            tickets.append(Ticket(slot: Ticket.passedDirectly, redirects: 1, directType: .safetynet))
            recordPassThrough(atNanoseconds: time)
            return .passed(
                ticket: ticketIndex, queueId: queueId, redirectType: .safetynet, token: token(queueId, .safetynet, now))
        }
        let ready = schedule.releasingTime(atNanoseconds: time)
        // `safetyNet: burst`: a pass-through took a turn, so the next slot comes a gap after it.
        let lastTurn = Self.later(slotReleasingTimes.last, lastPassThroughTurn)
        let slotTime = lastTurn.map { max(ready, schedule.releasingTime(after: $0)) } ?? ready
        tickets.append(Ticket(slot: Int32(slotReleasingTimes.count), redirects: 0))
        // Skipping turns, a slot's time is only when it may be released at the earliest: the
        // turns before it decide the rest.
        slotReleasingTimes.append(skipping == nil ? slotTime : ready)
        skipping?.slotTickets.append(Int32(ticketIndex))
        return .queued(ticket: ticketIndex, queueId: queueId)
    }

    private mutating func inviteRefusal(key: String?, token: String?, at now: RunInstant) -> String? {
        if let key, !key.isEmpty, configuration.knownEnqueueKeys.contains(key) { return uniqueKeyRefusal(key) }
        if let token, !token.isEmpty {
            let nowMilliseconds = configuration.epochUnixSeconds * 1000 + now.milliseconds
            return enqueueTokens.admit(token, nowUnixMilliseconds: nowMilliseconds)?.rawValue
        }
        if let key, !key.isEmpty { return "Enqueue key is not known" }
        return "This waiting room is invite-only: an enqueue key or enqueue token is required"
    }

    func anyoneWaiting(atNanoseconds time: Int64) -> Bool {
        if let skipping { return skipping.cursor < slotReleasingTimes.count }
        guard let last = slotReleasingTimes.last else { return false }
        return last > schedule.releasingTime(atNanoseconds: time)
    }

    // MARK: Queue page

    /// `inviteCode`: the queue URL's `code=`, if any.
    package mutating func queuePage(ticket index: Int, inviteCode: String? = nil, at now: RunInstant) -> QueuePageState
    {
        if tickets[index].awaitingInviteCode {
            guard let inviteCode, inviteCodes.contains(inviteCode) else {
                return .refused(
                    reason: inviteCode == nil
                        ? "This waiting room is invite-only: an invite code is required" : "Invite code is not known")
            }
            // A good code admits the ticket for good: later polls need not carry it.
            tickets[index].awaitingInviteCode = false
        }
        sealPreQueueIfDue(at: now)
        let time = now.wholeNanoseconds
        advanceSkippedTurns(atNanoseconds: time)
        heard(ticket: index, atNanoseconds: time)
        let mode = timeline.mode(atNanoseconds: time)
        let ticket = tickets[index]
        let passType: RoomMode
        // The slot whose turn has come, for a pass by the queue (its validity runs from then).
        var turnSlot: Int?
        if let direct = ticket.directType {
            passType = direct
        } else if !mode.releasesQueue {
            passType = mode
        } else if ticket.slot == Ticket.inPreQueue {
            return .preQueue(eventStartsIn: .nanoseconds(schedule.eventStart - time))
        } else {
            let slot = Int(ticket.slot)
            let releasedSlots = releasedSlotCount(atNanoseconds: time)
            guard slot < releasedSlots else {
                return .waiting(position(ofSlot: slot, releasedSlots: releasedSlots, at: now))
            }
            passType = .queue
            turnSlot = slot
        }
        if let loss = turnLoss(ofTicket: index, turnSlot: turnSlot, atNanoseconds: time) { return loss }
        tickets[index].redirects += 1
        return .yourTurn(redirectType: passType, token: token(queueIds.queueId(ofTicket: index), passType, now))
    }

    private func position(ofSlot slot: Int, releasedSlots: Int, at now: RunInstant) -> QueuePosition {
        let ahead = slot - releasedSlots
        let releaseAt = releaseInstant(ofQueueNumber: slot + 1)
        let outflow = schedule.outflow.perSecond(atNanoseconds: now.wholeNanoseconds)
        let wait: Duration =
            releaseAt.map { max($0 - now, .zero) }
            ?? (outflow > 0 ? .seconds(Double(ahead) / outflow) : .seconds(Int64.max / 4))
        return QueuePosition(position: ahead + 1, usersAhead: ahead, expectedWait: wait, releaseAt: releaseAt)
    }

    /// Slots whose releasing time has been reached (binary search over the sorted slot times).
    func releasedSlotCount(atNanoseconds time: Int64) -> Int {
        // Skipping turns: every slot before the cursor has had its turn (or was skipped: a
        // visitor taken for gone who polls again finds its turn has come).
        if let skipping { return skipping.cursor }
        let reached = schedule.releasingTime(atNanoseconds: time)
        var low = 0
        var high = slotReleasingTimes.count
        while low < high {
            let middle = (low + high) / 2
            if slotReleasingTimes[middle] <= reached { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Queue numbers given and not yet released at `now`, and those released so far: the
    /// live `/metrics`' room series.
    package func queueFigures(at now: RunInstant) -> (queueLength: Int, released: Int) {
        let released = min(releasedSlotCount(atNanoseconds: now.wholeNanoseconds), slotReleasingTimes.count)
        return (slotReleasingTimes.count - released, released)
    }

    // MARK: Schedule queries (for the virtual-time driver's poll shortcut)

    /// When queue number `queueNumber` (1-based release order) is released if the script holds;
    /// nil for unknown numbers or when the room stops releasing for good before then.
    package func releaseInstant(ofQueueNumber queueNumber: Int) -> RunInstant? {
        guard queueNumber >= 1, queueNumber <= slotReleasingTimes.count else { return nil }
        if let skipping {
            return schedule.instantReaching(releasingTime: skipping.estimate(slot: queueNumber - 1, in: self)).map(
                RunInstant.init(wholeNanoseconds:))
        }
        return schedule.instantReaching(releasingTime: slotReleasingTimes[queueNumber - 1]).map(
            RunInstant.init(wholeNanoseconds:))
    }

    /// When the ticket's turn comes if nothing unscripted changes: nil while it sits in an
    /// unshuffled pre-queue (its place is drawn at event start) or if the turn never comes.
    /// Mode windows that let everyone through early are not taken into account.
    package func releaseInstant(ofTicket index: Int) -> RunInstant? {
        guard index >= 0, index < tickets.count, tickets[index].slot >= 0, !tickets[index].awaitingInviteCode else {
            return nil
        }
        return releaseInstant(ofQueueNumber: Int(tickets[index].slot) + 1)
    }

    /// 1-based queue number of a ticket, once it has a place.
    package func queueNumber(ofTicket index: Int) -> Int? {
        guard index >= 0, index < tickets.count, tickets[index].slot >= 0 else { return nil }
        return Int(tickets[index].slot) + 1
    }

    // MARK: Pre-queue shuffle

    /// At the first call at or after event start, give the pre-queue its places in a seeded
    /// random order. Their releasing times (0, gap, 2·gap, …) are what they would have been had
    /// the shuffle run exactly at event start, so sealing late changes nothing.
    private mutating func sealPreQueueIfDue(at now: RunInstant) {
        guard !preQueueSealed, now.wholeNanoseconds >= schedule.eventStart else { return }
        preQueueSealed = true
        var order = preQueue
        // Our own Fisher–Yates (not `shuffle(using:)`, whose algorithm the standard library
        // may change): the same seed must give the same order on every toolchain.
        var random = SeededRandom(seed: configuration.seed, purpose: .preQueueShuffle)
        var remaining = order.count
        while remaining > 1 {
            let pick = Int(random.next().multipliedFullWidth(by: UInt64(remaining)).high)
            remaining -= 1
            order.swapAt(remaining, pick)
        }
        slotReleasingTimes.reserveCapacity(order.count)
        for ticketIndex in order {
            tickets[Int(ticketIndex)].slot = Int32(slotReleasingTimes.count)
            let slotTime = slotReleasingTimes.last.map { schedule.releasingTime(after: $0) } ?? 0
            // Skipping turns: all may go at event start, the turns before each decide when.
            slotReleasingTimes.append(skipping == nil ? slotTime : 0)
            skipping?.slotTickets.append(ticketIndex)
        }
        preQueue = []
    }

    // MARK: Skipped turns

    /// Moves the turn along to `time`: each slot in order is released at
    /// `max(its earliest, the last release + gap)` in releasing time, unless its visitor has been
    /// silent for `silenceBeforeGone` by then — then the turn goes on to the next slot at once,
    /// costing the outflow nothing. Calls come in time order and each moves the turn before it
    /// records its own visitor's poll, so a slot is judged on what the room had heard by its
    /// release instant.
    private mutating func advanceSkippedTurns(atNanoseconds time: Int64) {
        guard var state = skipping else { return }
        let reached = schedule.releasingTime(atNanoseconds: time)
        let silence = Self.silenceBeforeGone.wholeNanoseconds
        while state.cursor < slotReleasingTimes.count {
            let earliest = slotReleasingTimes[state.cursor]
            let candidate = state.lastRelease.map { max(earliest, schedule.releasingTime(after: $0)) } ?? earliest
            guard candidate <= reached, let instant = schedule.instantReaching(releasingTime: candidate) else { break }
            let ticket = Int(state.slotTickets[state.cursor])
            state.cursor += 1
            if configuration.settings.queueNumberValidity != nil { state.turnInstants.append(instant) }
            if state.lastHeard[ticket] &+ silence <= instant { continue }
            state.lastRelease = candidate
            if configuration.settings.safetyNet == .mixed { _ = recentSkippingReleases.record(atNanoseconds: instant) }
        }
        skipping = state
    }

    private mutating func heard(ticket: Int, atNanoseconds time: Int64) {
        guard skipping != nil, ticket >= 0 else { return }
        if ticket >= skipping!.lastHeard.count {
            skipping!.lastHeard.append(contentsOf: repeatElement(time, count: ticket + 1 - skipping!.lastHeard.count))
        }
        skipping!.lastHeard[ticket] = max(skipping!.lastHeard[ticket], time)
    }

    /// The turn's progress when turns of visitors who left are skipped.
    struct SkippedTurns: Sendable {
        /// The next slot whose turn is to come.
        var cursor = 0
        /// The releasing time of the last slot actually released.
        var lastRelease: Int64?
        /// The ticket of each slot.
        var slotTickets: [Int32] = []
        /// When the room last heard from each ticket (enqueue or queue page), in nanoseconds.
        var lastHeard: [Int64] = []
        /// With `queueNumberValidity`: the run instant each slot's turn came (released or
        /// skipped: a visitor taken for gone that polls again finds its turn has come then).
        var turnInstants: [Int64] = []

        /// When `slot`'s turn comes if nobody before it is skipped: what the queue page tells.
        func estimate(slot: Int, in model: WaitingRoomModel) -> Int64 {
            let earliest = model.slotReleasingTimes[slot]
            guard slot >= cursor else { return earliest }
            let ahead = Int64(slot - cursor)
            // The rate in force at the last release (a scheduled outflow's raise shows once reached).
            let gap = model.schedule.gap(afterReleasingTime: lastRelease ?? model.slotReleasingTimes[cursor])
            let base =
                lastRelease.map { $0 &+ gap &* (ahead + 1) }
                ?? model.slotReleasingTimes[cursor] &+ gap &* ahead
            return max(earliest, base)
        }
    }

    // MARK: Tokens

    private func token(_ queueId: String, _ type: RoomMode, _ now: RunInstant) -> String {
        let token = KnownUserToken(
            eventId: configuration.waitingRoomId, queueId: queueId,
            expiryUnixSeconds: configuration.unixSeconds(at: now + configuration.settings.tokenValidity),
            extendableCookie: true, redirectType: type.rawValue)
        return configuration.signsTokens ? token.signed(with: signingKey) : token.unsignedPlaceholder
    }
}
