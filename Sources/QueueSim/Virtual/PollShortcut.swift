import QueueClientCore

/// The poll shortcut: a visitor waiting in the queue polls the page every `Retry-After`
/// seconds (up to 30 s) until its turn, and an hour-long queue makes those polls most of a
/// run's events. When the room can forecast a poll's answer exactly
/// (`WaitingRoomService.pollForecast`), the driver does not hand it over: it counts the poll
/// where it would have been sent (the visitor's `polls` and `requests`, the timeline's
/// `requests` in that second, the room's request count) and moves the visitor straight to its
/// first poll that is not forecast — at or after its turn, in a fault window, in a mode that
/// lets everyone through, or the one that would run into `maxWait`.
///
/// Two places take it: a visitor's wake-up before a poll (`skipForecastPolls`: the polls are
/// never built), and a queue-page load just sent, such as the first one after enqueue
/// (`answerForecastLoad`: the request was built and counted as sent, but the room never sees
/// it and no answer event is scheduled).
///
/// Exactness, poll by poll: a forecast poll at `t` is answered 200 with
/// `Retry-After: R = ⌈releaseAt − t⌉` (1…30 s) after the modelled latency `L`, so the visitor
/// receives it at `t + L` and polls next at `t + L + R`, exactly what `forecastPolls`
/// computes. A poll whose answer would arrive after the run's hard stop is not skipped (the
/// last status a `queued` row shows is the last answer that arrived). Skipped polls change no
/// room state but the request count, and forecasts exist only when no random draw depends on
/// request numbers, so the other visitors' answers stay the same too. A ticket's release
/// instant never moves once given, so a chain computed now is the chain the visitor would
/// have walked poll by poll.
struct PollShortcut {
    /// Where the shortcut stopped: when the visitor's next real poll is due, whether that is
    /// because its turn has come there, and how many polls it answered without the room.
    struct Jump {
        var nextPollAt: RunInstant
        var turnCame: Bool
        var answeredPolls: Int
    }

    let room: WaitingRoomService
    /// `run.duration` as an instant: a poll whose answer would arrive after it is not skipped.
    let runDeadline: RunInstant?

    /// Skips the forecast polls of a visitor due to poll at `now`, counting each in `sent`.
    /// Nil when not even the first poll could be skipped (the caller polls now).
    /// `giveUpAt`: when the visitor's patience runs out, if it has one: no poll is answered
    /// from the forecast at or after it (the visitor closes the app before that answer).
    func skipForecastPolls(
        _ machine: inout VisitorMachine, at now: RunInstant, giveUpAt: RunInstant? = nil, sent: inout SentRequests
    ) -> Jump? {
        guard let pending = machine.pendingQueuePagePollQueueId else { return nil }
        return jump(
            &machine, queueId: pending.queueId, maxWaitEnds: pending.maxWaitEnds, giveUpAt: giveUpAt, loadSent: false,
            at: now,
            &sent)
    }

    /// Answers the queue-page load the machine has just sent at `now`, if its answer is
    /// forecast, and skips the forecast polls after it. Nil when the load's answer is not
    /// forecast (the caller hands the request to the room).
    func answerForecastLoad(
        _ machine: inout VisitorMachine, at now: RunInstant, giveUpAt: RunInstant? = nil, sent: inout SentRequests
    ) -> Jump? {
        guard let inFlight = machine.queuePageLoadInFlightQueueId else { return nil }
        return jump(
            &machine, queueId: inFlight.queueId, maxWaitEnds: inFlight.maxWaitEnds, giveUpAt: giveUpAt, loadSent: true,
            at: now, &sent)
    }

    /// The chain of forecast polls from `now`, walked on the machine. `loadSent`: the chain's
    /// first poll is a load the machine sent (and counted, as the engine did in `sent`); the
    /// machine takes it as answered.
    private func jump(
        _ machine: inout VisitorMachine, queueId: PageQueueId?, maxWaitEnds: RunInstant, giveUpAt: RunInstant?,
        loadSent: Bool, at now: RunInstant, _ sent: inout SentRequests
    ) -> Jump? {
        guard let queueId, let forecast = room.pollForecast(queueId: queueId) else {
            return nil
        }
        let timeout = machine.configuration.timeout(for: .queuePage, giveUpAt: maxWaitEnds)
        let (answered, pollAt) = forecastPolls(
            from: now, forecast, timeout: timeout.answerBound(sentAt: now), maxWaitEnds: maxWaitEnds,
            giveUpAt: giveUpAt, firstIsSent: loadSent, sent: &sent)
        guard answered > 0 else { return nil }
        if loadSent {
            machine.answerQueuePageLoad(nextPollAt: pollAt)
            if answered > 1 { machine.skipPolls(answered - 1, nextPollAt: pollAt) }
        } else {
            machine.skipPolls(answered, nextPollAt: pollAt)
        }
        return Jump(nextPollAt: pollAt, turnCame: pollAt >= forecast.releaseAt, answeredPolls: answered)
    }

    /// The forecast polls from `start` on, counted in `sent` where they would have been sent
    /// (but the first when `firstIsSent`): how many, and when the first one that is not
    /// forecast is due. A poll whose answer would take `timeout` or longer is not forecast
    /// (the visitor times it out); with jitter that is decided poll by poll.
    ///
    /// A chain is tens of polls per visitor, so it runs on whole-nanosecond offsets from
    /// `start` (`Duration` arithmetic divides 128-bit numbers for every second and Retry-After).
    /// Every increment is whole nanoseconds (latency, Retry-After), so a poll is `start + o`
    /// for an integer `o`, and each test against an instant `X` compares `o` with
    /// `X − start` rounded the way that keeps it exact for integers: `o < d ⟺ o < ⌈d⌉`,
    /// `o > d ⟺ o > ⌊d⌋`; the truncated nanoseconds to the turn are `⌊releaseAt − start⌋ − o`.
    private func forecastPolls(
        from start: RunInstant, _ forecast: QueuePagePollForecast, timeout: Duration, maxWaitEnds: RunInstant,
        giveUpAt: RunInstant?, firstIsSent: Bool, sent: inout SentRequests
    ) -> (count: Int, nextPollAt: RunInstant) {
        guard start >= .origin, start < forecast.releaseAt,
            let chain = Chain(
                from: start, forecast, timeout: timeout, maxWaitEnds: maxWaitEnds, giveUpAt: giveUpAt,
                runDeadline: runDeadline)
        else { return (0, start) }
        var walk = ChainWalk(firstIsSent: firstIsSent)
        // Far from the turn every answer says `Retry-After: 30`: with one latency the polls come
        // a fixed period apart, and that stretch is counted at once (`steadyStretch`), checked
        // against every bound below. Tried once per chain: what ends it is for the loop to see.
        var stretchTried = chain.fixedLatency == nil
        while walk.offset < chain.turn,
            room.pollIsForecast(at: chain.instant(walk.offset), nanoseconds: chain.at(walk.offset))
        {
            if !stretchTried, let fixedLatency = chain.fixedLatency, fixedLatency < chain.timeout,
                let horizon = room.forecastHorizonNanoseconds(after: chain.at(walk.offset))
            {
                stretchTried = true
                if countSteadyStretch(of: chain, &walk, latency: fixedLatency, horizon: horizon, sent: &sent) {
                    continue
                }
            }
            guard let poll = nextPoll(of: chain, walk, forecast) else { break }
            count(poll, of: chain, &walk, sent: &sent)
        }
        // A poll answered from the forecast counts everywhere a poll the room answered counts.
        if walk.skipped > 0 {
            room.countForecastRequests(walk.skipped, of: forecast)
            if let fixedLatency = chain.fixedLatency, sent.keepsAnswers {
                sent.answers.answeredLatencyOnly(
                    .queuePage, status: .ok, milliseconds: UInt64(fixedLatency / 1_000_000), count: walk.skipped)
                sent.answers.answeredLatencyTotals(
                    .queuePage, milliseconds: UInt64(fixedLatency / 1_000_000), count: walk.skipped)
            }
        }
        return (walk.skipped, start + .nanoseconds(walk.offset))
    }

    /// A chain's bounds as whole-nanosecond offsets from its start (`forecastPolls`).
    private struct Chain {
        let startWhole: Int64
        /// Truncated toward zero, as `Duration.components` splits.
        let startSeconds: Int64
        let startSubsecond: Int64
        /// To the turn: instants are whole nanoseconds, so floor and ceiling are the difference.
        let turn: Int64
        let maxWait: Int64
        /// The run's hard stop (floor).
        let deadline: Int64?
        /// The give-up event comes before an answer of the same instant (it was scheduled first).
        let giveUp: Int64?
        /// The poll's timeout (ceiling).
        let timeout: Int64
        /// Without draws every poll has the same latency: worked out once.
        let fixedLatency: Int64?

        /// Nil when the forecast latency is finer than a nanosecond: scenario durations and
        /// jitter are whole nanoseconds (microseconds), and a finer latency would break the
        /// offsets' arithmetic, so it gets no shortcut (polls go to the room).
        init?(
            from start: RunInstant, _ forecast: QueuePagePollForecast, timeout: Duration, maxWaitEnds: RunInstant,
            giveUpAt: RunInstant?, runDeadline: RunInstant?
        ) {
            // No `Duration` is made: it multiplies 128-bit numbers.
            let startWhole = start.wholeNanoseconds
            self.startWhole = startWhole
            turn = forecast.releaseAt.wholeNanoseconds &- startWhole
            maxWait = maxWaitEnds.wholeNanoseconds &- startWhole
            deadline = runDeadline.map { $0.wholeNanoseconds &- startWhole }
            giveUp = giveUpAt.map { $0.wholeNanoseconds &- startWhole }
            self.timeout = PollShortcut.ceilingNanoseconds(timeout)
            fixedLatency = forecast.draws == nil ? PollShortcut.floorNanoseconds(forecast.latency) : nil
            if let fixedLatency, forecast.latency != .nanoseconds(fixedLatency) { return nil }
            (startSeconds, startSubsecond) = startWhole.quotientAndRemainder(dividingBy: 1_000_000_000)
        }

        /// Whole nanoseconds from the origin at `offset`.
        func at(_ offset: Int64) -> Int64 { startWhole + offset }

        func instant(_ offset: Int64) -> RunInstant { RunInstant(wholeNanoseconds: startWhole + offset) }

        /// The run's second `offset` falls in.
        func second(at offset: Int64) -> Int {
            Int(startSeconds) + Int((startSubsecond + offset) / 1_000_000_000)
        }
    }

    /// Where a walk along a chain is: the next poll's offset, the polls answered so far, and
    /// (with one latency for every poll) the per-second slot of their answers, looked up once
    /// at the first answer, where it was made before.
    private struct ChainWalk {
        let firstIsSent: Bool
        var offset: Int64 = 0
        var skipped = 0
        var fixedSlot: Int?

        init(firstIsSent: Bool) { self.firstIsSent = firstIsSent }

        /// Whether the poll at the current offset is still to be counted as sent: the chain's
        /// first poll, when the engine sent it, is counted already.
        var pollIsUncounted: Bool { skipped > 0 || !firstIsSent }
    }

    /// Counts the steady stretch from the walk's offset at once, if there is one, and moves the
    /// walk past it; false when the stretch is empty (the loop walks poll by poll).
    private func countSteadyStretch(
        of chain: Chain, _ walk: inout ChainWalk, latency: Int64, horizon: Int64, sent: inout SentRequests
    ) -> Bool {
        let period = latency + WaitingRoomService.longestPollSeconds * 1_000_000_000
        let stretch = Self.steadyStretch(
            from: walk.offset, period: period, latency: latency,
            bounds: .init(
                turn: chain.turn, horizon: horizon == .max ? nil : horizon - chain.startWhole,
                deadline: chain.deadline, giveUp: chain.giveUp, maxWait: chain.maxWait))
        guard stretch > 0 else { return false }
        let uncounted = walk.pollIsUncounted ? 0 : 1
        sent.count(
            firstNanoseconds: chain.at(walk.offset) + Int64(uncounted) * period, periodNanoseconds: period,
            count: stretch - uncounted)
        if sent.keepsAnswers {
            let slot =
                walk.fixedSlot
                ?? sent.answers.deferredSlot(.queuePage, status: .ok, milliseconds: UInt64(latency / 1_000_000))
            walk.fixedSlot = slot
            sent.answers.answered(
                slot, firstNanoseconds: chain.at(walk.offset) + latency, periodNanoseconds: period, count: stretch)
        }
        walk.skipped += stretch
        walk.offset += Int64(stretch) * period
        return true
    }

    /// One poll of a chain: its answer's latency and offset, and the next poll's offset.
    private struct ChainPoll {
        var latency: Int64
        var answeredOffset: Int64
        var nextOffset: Int64
    }

    /// The poll at the walk's offset, if its answer is forecast and changes nothing the shortcut
    /// may not skip: nil when the visitor would time it out, its answer comes after the run's
    /// hard stop or at the give-up, or the poll after it runs into `maxWait`.
    private func nextPoll(of chain: Chain, _ walk: ChainWalk, _ forecast: QueuePagePollForecast) -> ChainPoll? {
        let latency: Int64
        if let fixedLatency = chain.fixedLatency {
            latency = fixedLatency
        } else if let draws = forecast.draws, let drawn = room.forecastLatencyNanoseconds(draws, poll: walk.skipped) {
            latency = drawn
        } else {
            return nil
        }
        guard latency < chain.timeout else { return nil }
        let answeredOffset = walk.offset + latency
        if let deadline = chain.deadline, answeredOffset > deadline { return nil }
        if let giveUp = chain.giveUp, answeredOffset >= giveUp { return nil }
        let retryAfter = WaitingRoomService.retryAfterSeconds(untilTurnNanoseconds: chain.turn - walk.offset)
        let nextOffset = answeredOffset + retryAfter * 1_000_000_000
        guard nextOffset < chain.maxWait else { return nil }
        return ChainPoll(latency: latency, answeredOffset: answeredOffset, nextOffset: nextOffset)
    }

    /// Counts one forecast poll where it would have been sent and answered, and moves the walk
    /// to the next. Every poll of the chain is answered, the first one sent by the engine included.
    private func count(_ poll: ChainPoll, of chain: Chain, _ walk: inout ChainWalk, sent: inout SentRequests) {
        if walk.pollIsUncounted { sent.count(inSecond: chain.second(at: walk.offset)) }
        if sent.keepsAnswers {
            let milliseconds = UInt64(poll.latency / 1_000_000)
            let answeredSecond = chain.second(at: poll.answeredOffset)
            if chain.fixedLatency != nil {
                let slot =
                    walk.fixedSlot ?? sent.answers.deferredSlot(.queuePage, status: .ok, milliseconds: milliseconds)
                walk.fixedSlot = slot
                sent.answers.answeredInSecond(slot, second: answeredSecond)
            } else {
                sent.answers.answeredInSecond(
                    .queuePage, status: .ok, milliseconds: milliseconds, second: answeredSecond)
                sent.answers.answeredLatencyOnly(.queuePage, status: .ok, milliseconds: milliseconds, count: 1)
            }
        }
        walk.skipped += 1
        walk.offset = poll.nextOffset
    }

    /// Offsets from a chain's start (whole nanoseconds) that end a steady stretch: the
    /// visitor's turn (truncated), the first instant a poll may not be forecast, the last an
    /// answer may arrive by (the run's hard stop), the visitor's give-up, and its `maxWait`.
    struct StretchBounds {
        var turn: Int64
        var horizon: Int64?
        var deadline: Int64?
        var giveUp: Int64?
        var maxWait: Int64
    }

    /// How many polls from `offset` on, `period` apart, the loop of `forecastPolls` would count
    /// each with `Retry-After: longestPollSeconds` and no bound crossed, so that each is followed
    /// by the next one `period` later. Poll `j` at `o = offset + j × period` is in the stretch when
    /// - its answer says the longest wait: `turn − o > (longestPollSeconds − 1) s`;
    /// - it is forecast: `o < horizon`;
    /// - its answer, at `o + latency`, comes by the deadline and before the give-up;
    /// - the poll after it, at `o + period`, comes before `maxWait` ends.
    /// Every bound is an offset, so each gives a count of `j` with `j × period < B`.
    static func steadyStretch(from offset: Int64, period: Int64, latency: Int64, bounds: StretchBounds) -> Int {
        // The number of j ≥ 0 with offset + j × period < bound (saturating: bounds may be far off).
        func polls(before bound: Int64?) -> Int64 {
            guard let bound else { return .max }
            let (room, overflow) = bound.subtractingReportingOverflow(offset)
            if overflow { return bound > 0 ? .max : 0 }
            return room <= 0 ? 0 : (room - 1) / period + 1
        }
        func minus(_ bound: Int64?, _ amount: Int64) -> Int64? {
            bound.map { $0.subtractingReportingOverflow(amount).overflow ? .min : $0 - amount }
        }
        func plus(_ bound: Int64?, _ amount: Int64) -> Int64? {
            bound.map { $0.addingReportingOverflow(amount).overflow ? .max : $0 + amount }
        }
        let longest = WaitingRoomService.longestPollSeconds * 1_000_000_000
        var count = polls(before: minus(bounds.turn, longest - 1_000_000_000))
        count = min(count, polls(before: bounds.horizon))
        // o + latency ≤ deadline  ⟺  o < deadline − latency + 1
        count = min(count, polls(before: plus(minus(bounds.deadline, latency), 1)))
        count = min(count, polls(before: minus(bounds.giveUp, latency)))
        count = min(count, polls(before: minus(bounds.maxWait, period)))
        return Int(count)
    }

    fileprivate static func floorNanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        // `components` rounds toward zero with both parts of the same sign.
        let whole = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return attoseconds < 0 && attoseconds % 1_000_000_000 != 0 ? whole - 1 : whole
    }

    fileprivate static func ceilingNanoseconds(_ duration: Duration) -> Int64 {
        let floor = floorNanoseconds(duration)
        return duration == .nanoseconds(floor) ? floor : floor + 1
    }
}
