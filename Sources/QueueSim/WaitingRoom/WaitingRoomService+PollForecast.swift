import QueueClientCore

/// What the room will answer to a visitor's queue-page polls while it waits, known without
/// handling them: the basis of the virtual-time driver's poll shortcut.
///
/// A poll of a ticket that has a place, at a time `t` before its release instant, in a
/// releasing mode, with no fault rule covering queue pages at `t`, is answered `200` with
/// `Retry-After: retryAfterSeconds(releaseAt − t)` after exactly the modelled queue-page latency,
/// and changes nothing in the room but `requestCount` and the visitor's draw count. A visitor's
/// n-th request draws its latency jitter (and faults) from `(seed, visitor, n)`, so where draws
/// matter a forecast names the visitor and the ordinal of its next request: the k-th poll of a
/// chain is answered after the jitter of ordinal `firstOrdinal + k`, exactly the delay the room
/// would have drawn, and the room then counts the skipped polls as that visitor's requests, so
/// its later draws keep their numbers. Forecasts are offered only when the room can tell the
/// visitor (its ticket has a draw key), and only when the order of polls at one instant cannot
/// matter (`pollOrderIsIrrelevant`).
package struct QueuePagePollForecast: Sendable, Equatable {
    /// When the ticket's turn comes (the script holds: slots never move once given).
    package var releaseAt: RunInstant
    /// The delay before every forecast answer when nothing is drawn (`draws` is nil), the
    /// queue page's modelled latency before jitter otherwise.
    package var latency: Duration
    /// Whose draws the polls' jitter comes from, and the ordinal of the chain's first poll;
    /// nil when no answer depends on a draw.
    package var draws: Draws?

    package struct Draws: Sendable, Equatable {
        package var visitor: UInt64
        package var firstOrdinal: UInt32
    }
}

extension WaitingRoomService {
    /// The forecast for the visitor polling `queueId`, or nil when its polls must be handled one
    /// by one (unknown id, no place yet, a turn that never comes, or draws that matter for a
    /// ticket the room cannot tie to a visitor).
    package func pollForecast(queueId: String) -> QueuePagePollForecast? {
        pollForecast(queueId: .text(queueId))
    }

    /// As `pollForecast(queueId:)`, for a queue id as a poll shortcut reads it from the visitor
    /// (a packed UUID is looked up from its digits, with no text made and parsed).
    package func pollForecast(queueId: PageQueueId) -> QueuePagePollForecast? {
        // Skipping turns of visitors who left moves release instants: nothing can be forecast.
        guard faults.pollOrderIsIrrelevant,
            let (ticket, releaseAt) = inPlaceModel({ model -> (Int, RunInstant)? in
                guard !model.skipsTurns, let ticket = model.ticket(for: queueId),
                    let releaseAt = model.releaseInstant(ofTicket: ticket)
                else { return nil }
                return (ticket, releaseAt)
            })
        else { return nil }
        var forecast = QueuePagePollForecast(
            releaseAt: releaseAt, latency: faults.baseLatency(endpoint: .queuePage), draws: nil)
        if let draws {
            // A ticket without a draw key draws from the room's request count: skipping polls
            // would renumber everyone's draws.
            guard let visitor = draws.visitor(ofTicket: ticket) else { return nil }
            forecast.draws = .init(visitor: visitor, firstOrdinal: draws.nextOrdinal(visitor: visitor))
        }
        return forecast
    }

    /// The delay before the answer to the forecast's `poll`-th poll (0 the first) when it has
    /// draws: the queue page's latency with the jitter the room would draw for it, in
    /// nanoseconds; nil when that latency is not whole nanoseconds.
    func forecastLatencyNanoseconds(_ draws: QueuePagePollForecast.Draws, poll: Int) -> Int64? {
        let ordinal = draws.firstOrdinal &+ UInt32(truncatingIfNeeded: poll)
        return faults.queuePageLatencyNanoseconds(
            drawIndex: VisitorDraws.index(visitor: draws.visitor, ordinal: ordinal))
    }

    /// True when a poll at `now` by a visitor whose `releaseAt` is later than `now` gets the
    /// forecast answer: the room is in a releasing mode and no fault rule covers queue pages.
    /// `nanoseconds` is `now` in whole nanoseconds (rounded down), which a forecast chain knows
    /// without dividing; `now` itself is only worked out when some fault rule could apply (a
    /// chain asks tens of times per visitor, and making an `RunInstant` multiplies 128-bit numbers).
    func pollIsForecast(at now: @autoclosure () -> RunInstant, nanoseconds: Int64) -> Bool {
        guard modes.mode(atNanoseconds: nanoseconds).releasesQueue else { return false }
        return faults.rules.isEmpty || !faults.anyRuleApplies(endpoint: .queuePage, at: now())
    }

    /// For a poll at `nanoseconds` that `pollIsForecast`: the first instant (whole nanoseconds)
    /// from which a later poll may not be, so every poll before it is. Nil when fault rules
    /// exist (each poll is then asked about on its own).
    func forecastHorizonNanoseconds(after nanoseconds: Int64) -> Int64? {
        guard faults.rules.isEmpty else { return nil }
        return modes.releasingEndsNanoseconds(after: nanoseconds)
    }
}
