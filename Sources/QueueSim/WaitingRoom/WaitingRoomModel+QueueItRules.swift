import QueueClientCore

/// What the rules imported from a Queue-it event did in a run: run.json's `room`.
package struct RoomRuleCounts: Sendable, Equatable, Encodable {
    /// Tickets whose turn came and which asked for their redirect after `queueNumberValidity`.
    package var turnsExpired = 0
    /// Tickets refused a redirect beyond `maxRedirectsPerQueueId` (Queue-it's
    /// `exceededmaxredirectcount`).
    package var exceededMaxRedirectCount = 0
    /// Enqueues refused because their key had been used before (`uniqueKeys`).
    package var reusedKeysRefused = 0

    enum CodingKeys: String, CodingKey {
        case turnsExpired = "turns_expired"
        case exceededMaxRedirectCount = "exceeded_max_redirect_count"
        case reusedKeysRefused = "reused_keys_refused"
    }

    package init(turnsExpired: Int = 0, exceededMaxRedirectCount: Int = 0, reusedKeysRefused: Int = 0) {
        self.turnsExpired = turnsExpired
        self.exceededMaxRedirectCount = exceededMaxRedirectCount
        self.reusedKeysRefused = reusedKeysRefused
    }
}

/// Why a ticket's turn is lost for good: every later request for it gets the same answer.
enum TurnLoss: Sendable {
    case expired
    case redirectLimit
}

/// Queue-number validity, max redirects per queue id, unique keys and the SafetyNet variants
/// (docs/waiting-room.md, "Rules imported from a Queue-it event").
extension WaitingRoomModel {
    /// Whether the ticket may have its redirect now; nil if so, else what its page says.
    /// `turnSlot`: the slot whose turn has come, when the ticket passes by the queue (not by a
    /// pass-through or a mode that lets everyone through, which redirect at once).
    mutating func turnLoss(ofTicket index: Int, turnSlot: Int?, atNanoseconds time: Int64) -> QueuePageState? {
        switch tickets[index].lost {
        case .expired: return .queueNumberExpired
        case .redirectLimit: return .redirectLimitExceeded
        case nil: break
        }
        // The settings read in place (a copy of them would retain their arrays on every poll).
        if let validity = configuration.settings.queueNumberValidity, let turnSlot,
            let turnCame = turnInstant(ofSlot: turnSlot),
            time - turnCame > validity.wholeNanoseconds
        {
            tickets[index].lost = .expired
            ruleCounts.turnsExpired += 1
            return .queueNumberExpired
        }
        guard Int(tickets[index].redirects) < configuration.settings.maxRedirectsPerQueueId else {
            tickets[index].lost = .redirectLimit
            ruleCounts.exceededMaxRedirectCount += 1
            return .redirectLimitExceeded
        }
        return nil
    }

    /// The run instant a released slot's turn came, in nanoseconds.
    private func turnInstant(ofSlot slot: Int) -> Int64? {
        if let skipping { return slot < skipping.turnInstants.count ? skipping.turnInstants[slot] : nil }
        return schedule.instantReaching(releasingTime: slotReleasingTimes[slot])
    }

    /// `uniqueKeys`: a known key admits its first enqueue only. Nil: admitted (and now used).
    mutating func uniqueKeyRefusal(_ key: String) -> String? {
        guard configuration.settings.uniqueKeys else { return nil }
        guard usedEnqueueKeys.insert(key).inserted else {
            ruleCounts.reusedKeysRefused += 1
            return "Enqueue key has already been used"
        }
        return nil
    }

    // MARK: SafetyNet

    /// Whether a visitor arriving at `time` in safetynet mode passes straight through, by the
    /// room's variant. Nobody passes while someone waits: the queue's order holds.
    mutating func safetyNetLetsThrough(arrivalsInWindow: Int, atNanoseconds time: Int64) -> Bool {
        guard !anyoneWaiting(atNanoseconds: time) else { return false }
        let minuteOfOutflow = schedule.outflow.perSecond(atNanoseconds: time) * 60
        switch configuration.settings.safetyNet {
        case .normal:
            // The trailing 60 s arrivals, this one counted, within a minute's outflow.
            return Double(arrivalsInWindow) <= minuteOfOutflow
        case .burst:
            // A pass-through takes a turn of the smooth outflow: one must be free now.
            let lastTurn: Int64? =
                if let skipping { skipping.lastRelease } else {
                    Self.later(slotReleasingTimes.last, lastPassThroughTurn)
                }
            guard let lastTurn else { return true }
            return schedule.releasingTime(after: lastTurn) <= schedule.releasingTime(atNanoseconds: time)
        case .mixed:
            // The output of the trailing 60 s (pass-throughs and the queue's turns) below a minute's
            // outflow, so this redirect keeps it within.
            return Double(redirectsInTrailingMinute(atNanoseconds: time)) < minuteOfOutflow
        }
    }

    /// The later of two optional releasing times (no array made: it runs on every enqueue).
    static func later(_ first: Int64?, _ second: Int64?) -> Int64? {
        guard let first else { return second }
        guard let second else { return first }
        return max(first, second)
    }

    /// Books a pass-through at `time` for the variants that count it.
    mutating func recordPassThrough(atNanoseconds time: Int64) {
        switch configuration.settings.safetyNet {
        case .normal:
            break
        case .burst:
            let turn = schedule.releasingTime(atNanoseconds: time)
            if skipping != nil { skipping!.lastRelease = turn } else { lastPassThroughTurn = turn }
        case .mixed:
            _ = recentPassThroughs.record(atNanoseconds: time)
        }
    }

    /// Redirects in `(time − 60 s, time]`: pass-throughs and the queue's turns (a turn whose
    /// visitor left is still given, as Queue-it counts it in its queue outflow).
    private mutating func redirectsInTrailingMinute(atNanoseconds time: Int64) -> Int {
        let passThroughs = recentPassThroughs.count(atNanoseconds: time)
        if skipping != nil { return passThroughs + recentSkippingReleases.count(atNanoseconds: time) }
        let windowStart = time - ArrivalRateWindow.length
        // Releases at releasing time r ≤ R(t) by `t`; before event start none has come.
        let releasedBefore = windowStart < schedule.eventStart ? 0 : releasedSlotCount(atNanoseconds: windowStart)
        return passThroughs + releasedSlotCount(atNanoseconds: time) - releasedBefore
    }
}
