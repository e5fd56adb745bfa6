import QueueClientCore

/// Scripted faults and modelled latency for one request.
///
/// Determinism: the draws for a request with draw index n come from
/// `SeededRandom(seed, .faultInjection, n)` and `SeededRandom(seed, .latency, n)`. The service
/// makes n from the visitor and its own request count (`VisitorDraws`), so a visitor meets the
/// same faults whichever process or shard sent it. Rules are tried in scenario order, one draw
/// per rule whose window `[from, to)` and endpoint match; latency faults add up, the first other
/// fault that fires decides the answer. `mode` rules live in `ModeTimeline`, not here.
struct FaultInjector: Sendable {
    enum Verdict: Sendable, Equatable {
        case proceed
        case status(Int)
        case reset
        case timeout
        case malformedBody
        case navigate(QueuePageNavigation)
    }

    let rules: [FaultRule]
    let latency: LatencySettings
    let seed: UInt64
    /// The queue page's latency and jitter in whole nanoseconds and microseconds, for poll
    /// forecasts, which draw a poll's delay tens of times per visitor; nil when the latency is
    /// not whole nanoseconds (then no forecast uses draws).
    private let queuePageNanoseconds: Int64?
    private let jitterMicroseconds: Int64

    init(settings: WaitingRoomSettings, seed: UInt64) {
        rules = settings.faults.filter { rule in
            if case .mode = rule.effect { return false }
            return true
        }
        latency = settings.latency
        self.seed = seed
        let (seconds, attoseconds) = settings.latency.queuePage.components
        queuePageNanoseconds =
            attoseconds % 1_000_000_000 == 0 && seconds < Int64.max / 2_000_000_000
            ? seconds * 1_000_000_000 + attoseconds / 1_000_000_000 : nil
        jitterMicroseconds = settings.latency.jitter.wholeNanoseconds / 1000
    }

    /// The verdict and the total delay before answering (modelled latency plus fault latency).
    func decide(endpoint: RoomEndpoint, drawIndex: UInt64, at now: RunInstant) -> (Verdict, Duration) {
        var delay = modelledLatency(endpoint: endpoint, drawIndex: drawIndex)
        var random = SeededRandom(seed: seed, purpose: .faultInjection, index: drawIndex)
        for rule in rules where applies(rule, endpoint: endpoint, at: now) {
            guard random.nextUnit() < rule.rate else { continue }
            switch rule.effect {
            case .latency(let added, let jitter):
                delay += added + symmetricJitter(jitter, using: &random)
            case .status(let code): return (.status(code), max(delay, .zero))
            case .reset: return (.reset, max(delay, .zero))
            case .timeout: return (.timeout, max(delay, .zero))
            case .malformedBody: return (.malformedBody, max(delay, .zero))
            case .navigate(let target):
                if endpoint == .queuePage { return (.navigate(target), max(delay, .zero)) }
            case .mode: continue
            }
        }
        return (.proceed, max(delay, .zero))
    }

    /// True when no answer depends on which draw index a request got: no latency jitter, and every
    /// rule fires always or never (rate 1 or 0) and adds no jitter. Only then may a driver skip
    /// requests without changing the draws of the requests that follow.
    var drawsAreIrrelevant: Bool {
        guard latency.jitter.wholeNanoseconds == 0 else { return false }
        return rules.allSatisfy { rule in
            guard rule.rate >= 1 || rule.rate <= 0 else { return false }
            if case .latency(_, let jitter) = rule.effect { return jitter.wholeNanoseconds == 0 }
            return true
        }
    }

    /// True when the order of two queue-page polls at the same instant cannot matter: no rule
    /// can answer one with `queueit://restartSession`. A restart enqueues again, and tickets go
    /// in the order of the enqueues, so it would number visitors in the order their polls ran.
    /// A poll shortcut schedules a visitor's next real poll earlier than a poll-by-poll run
    /// does, which can change the order of polls that fall on the same instant.
    var pollOrderIsIrrelevant: Bool {
        !rules.contains { rule in
            guard rule.rate > 0, rule.endpoint == .any || rule.endpoint == .queuePage else { return false }
            if case .navigate(.restartSession) = rule.effect { return true }
            return false
        }
    }

    /// True when some rule's window and endpoint cover a request to `endpoint` at `now`.
    func anyRuleApplies(endpoint: RoomEndpoint, at now: RunInstant) -> Bool {
        rules.contains { applies($0, endpoint: endpoint, at: now) }
    }

    /// The modelled latency of an endpoint when there is no jitter.
    func baseLatency(endpoint: RoomEndpoint) -> Duration {
        switch endpoint {
        case .enqueue: latency.enqueue
        case .queuePage: latency.queuePage
        case .protectedApi: latency.protectedApi
        case .any: .zero
        }
    }

    private func applies(_ rule: FaultRule, endpoint: RoomEndpoint, at now: RunInstant) -> Bool {
        guard rule.endpoint == .any || rule.endpoint == endpoint else { return false }
        guard now.sinceOrigin >= rule.from else { return false }
        if let end = rule.to, now.sinceOrigin >= end { return false }
        return true
    }

    private func modelledLatency(endpoint: RoomEndpoint, drawIndex: UInt64) -> Duration {
        let base: Duration
        switch endpoint {
        case .enqueue: base = latency.enqueue
        case .queuePage: base = latency.queuePage
        case .protectedApi: base = latency.protectedApi
        case .any: base = .zero
        }
        var random = SeededRandom(seed: seed, purpose: .latency, index: drawIndex)
        return max(.zero, base + symmetricJitter(latency.jitter, using: &random))
    }

    /// A queue page's modelled latency in nanoseconds, with the jitter of draw `drawIndex`: the
    /// delay `decide` gives a poll no fault rule covers, worked out without `Duration`'s 128-bit
    /// arithmetic. Nil when the latency is not whole nanoseconds.
    func queuePageLatencyNanoseconds(drawIndex: UInt64) -> Int64? {
        guard let base = queuePageNanoseconds else { return nil }
        guard jitterMicroseconds > 0 else { return max(0, base) }
        var random = SeededRandom(seed: seed, purpose: .latency, index: drawIndex)
        let draw = Int64(random.next() % UInt64(2 * jitterMicroseconds + 1)) - jitterMicroseconds
        return max(0, base + draw * 1000)
    }

    /// Uniform in [−jitter, +jitter], to the microsecond.
    private func symmetricJitter(_ jitter: Duration, using random: inout SeededRandom) -> Duration {
        let span = jitter.wholeNanoseconds / 1000
        guard span > 0 else { return .zero }
        let draw = Int64(random.next() % UInt64(2 * span + 1)) - span
        return .microseconds(draw)
    }
}
