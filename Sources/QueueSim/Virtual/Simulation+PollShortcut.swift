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
/// Exactness, poll by poll: a forecast poll at `t` is answered 200 with
/// `Retry-After: R = ⌈releaseAt − t⌉` (1…30 s) after the modelled latency `L`, so the visitor
/// receives it at `t + L` and polls next at `t + L + R`, exactly what the loop below computes.
/// A poll whose answer would arrive after the run's hard stop is not skipped (the last status a
/// `queued` row shows is the last answer that arrived). Skipped polls change no room state
/// but the request count, and forecasts exist only when no random draw depends on request
/// numbers, so the other visitors' answers stay the same too.
extension Simulation {
    /// Skips the forecast polls of a visitor due to poll now. Returns when its next real poll
    /// is due, or nil when not even the first poll could be skipped (the caller polls now).
    mutating func skipForecastPolls(_ machine: inout VisitorMachine) -> Instant? {
        guard let pending = machine.pendingQueuePagePoll, let queueId = pending.url.queryValue("q"),
            let forecast = room.pollForecast(queueId: queueId),
            forecast.latency < machine.configuration.requestTimeout
        else { return nil }
        let releaseAt = forecast.releaseAt
        let latency = forecast.latency
        let lastAnswer = runDeadline
        var pollAt = loop.now
        var skipped = 0
        while pollAt < releaseAt, room.pollIsForecast(at: pollAt) {
            let answeredAt = pollAt + latency
            if let lastAnswer, answeredAt > lastAnswer { break }
            let retryAfter = WaitingRoomService.forecastRetryAfter(untilTurn: releaseAt - pollAt)
            let nextPoll = answeredAt + .seconds(retryAfter)
            guard nextPoll < pending.maxWaitEnds else { break }
            recorder.recordRequest(at: pollAt)
            skipped += 1
            pollAt = nextPoll
        }
        guard skipped > 0 else { return nil }
        machine.skipPolls(skipped, nextPollAt: pollAt)
        room.countForecastRequests(skipped)
        progress.requests += skipped
        skippedPolls += skipped
        return pollAt
    }
}
