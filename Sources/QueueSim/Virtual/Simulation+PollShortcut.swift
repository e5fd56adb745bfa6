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
/// (`answerForecastLoad`: the request was built, but the room never sees it and no answer
/// event is scheduled).
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
extension Simulation {
    /// Skips the forecast polls of a visitor due to poll now. Returns when its next real poll
    /// is due and whether that is because its turn has come there, or nil when not even the
    /// first poll could be skipped (the caller polls now).
    mutating func skipForecastPolls(_ machine: inout VisitorMachine) -> (at: RunInstant, turnCame: Bool)? {
        guard let pending = machine.pendingQueuePagePoll,
            let forecast = forecast(for: pending.url, timeout: machine.configuration.group.requestTimeout)
        else { return nil }
        let (skipped, pollAt) = forecastPolls(from: loop.now, forecast, maxWaitEnds: pending.maxWaitEnds)
        guard skipped > 0 else { return nil }
        machine.skipPolls(skipped, nextPollAt: pollAt)
        return (pollAt, pollAt >= forecast.releaseAt)
    }

    /// Answers the queue-page load the machine has just sent, if its answer is forecast, and
    /// skips the forecast polls after it. Returns when the visitor's next real poll is due and
    /// whether its turn has come by then, or nil when the load's answer is not forecast (the
    /// caller hands the request to the room).
    mutating func answerForecastLoad(_ machine: inout VisitorMachine) -> (at: RunInstant, turnCame: Bool)? {
        guard let inFlight = machine.queuePageLoadInFlight,
            let forecast = forecast(for: inFlight.url, timeout: machine.configuration.group.requestTimeout)
        else { return nil }
        // The load in flight is the chain's first poll: the machine counted it when it sent it.
        let (answered, pollAt) = forecastPolls(from: loop.now, forecast, maxWaitEnds: inFlight.maxWaitEnds)
        guard answered > 0 else { return nil }
        machine.answerQueuePageLoad(nextPollAt: pollAt)
        if answered > 1 { machine.skipPolls(answered - 1, nextPollAt: pollAt) }
        return (pollAt, pollAt >= forecast.releaseAt)
    }

    private func forecast(for url: SimpleURL, timeout: Duration) -> QueuePagePollForecast? {
        guard let queueId = url.queryValue("q"), let forecast = room.pollForecast(queueId: queueId),
            forecast.latency < timeout
        else { return nil }
        return forecast
    }

    /// The forecast polls from `start` on, counted where they are sent: how many, and when the
    /// first one that is not forecast is due.
    ///
    /// A chain is tens of polls per visitor, so it runs on whole-nanosecond offsets from
    /// `start` (`Duration` arithmetic divides 128-bit numbers for every second and Retry-After).
    /// Every increment is whole nanoseconds (latency, Retry-After), so a poll is `start + o`
    /// for an integer `o`, and each test against an instant `X` compares `o` with
    /// `X − start` rounded the way that keeps it exact for integers: `o < d ⟺ o < ⌈d⌉`,
    /// `o > d ⟺ o > ⌊d⌋`; the truncated nanoseconds to the turn are `⌊releaseAt − start⌋ − o`.
    private mutating func forecastPolls(
        from start: RunInstant, _ forecast: QueuePagePollForecast, maxWaitEnds: RunInstant
    ) -> (count: Int, nextPollAt: RunInstant) {
        guard start >= .origin, start < forecast.releaseAt else { return (0, start) }
        let untilTurn = forecast.releaseAt - start
        let turnCeiling = Self.ceilingNanoseconds(untilTurn)
        let turnFloor = Self.floorNanoseconds(untilTurn)
        let maxWaitCeiling = Self.ceilingNanoseconds(maxWaitEnds - start)
        let deadlineFloor = runDeadline.map { Self.floorNanoseconds($0 - start) }
        let latency = Self.floorNanoseconds(forecast.latency)
        // Scenario durations are whole nanoseconds; a finer latency would break the offsets'
        // arithmetic, so it gets no shortcut (polls go to the room one by one).
        guard forecast.latency == .nanoseconds(latency) else { return (0, start) }
        let (startSeconds, startAttoseconds) = start.sinceOrigin.components
        let startSubsecond = startAttoseconds / 1_000_000_000
        let startWhole = startSeconds * 1_000_000_000 + startSubsecond
        var offset: Int64 = 0
        var skipped = 0
        while offset < turnCeiling,
            room.pollIsForecast(at: start + .nanoseconds(offset), nanoseconds: startWhole + offset)
        {
            let answeredOffset = offset + latency
            if let deadlineFloor, answeredOffset > deadlineFloor { break }
            let nanosecondsToTurn = turnFloor - offset
            let retryAfter = WaitingRoomService.retryAfterSeconds(untilTurnNanoseconds: nanosecondsToTurn)
            let nextOffset = answeredOffset + retryAfter * 1_000_000_000
            guard nextOffset < maxWaitCeiling else { break }
            requestsPerSecond.add(at: Int(startSeconds) + Int((startSubsecond + offset) / 1_000_000_000))
            skipped += 1
            offset = nextOffset
        }
        countForecastPolls(skipped)
        return (skipped, start + .nanoseconds(offset))
    }

    private static func floorNanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        // `components` rounds toward zero with both parts of the same sign.
        let whole = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return attoseconds < 0 && attoseconds % 1_000_000_000 != 0 ? whole - 1 : whole
    }

    private static func ceilingNanoseconds(_ duration: Duration) -> Int64 {
        let floor = floorNanoseconds(duration)
        return duration == .nanoseconds(floor) ? floor : floor + 1
    }

    /// A poll answered from the forecast counts everywhere a poll the room answered counts
    /// (the chain counts each in its second of the timeline).
    private mutating func countForecastPolls(_ count: Int) {
        guard count > 0 else { return }
        room.countForecastRequests(count)
        progress.requests += count
        skippedPolls += count
    }
}
