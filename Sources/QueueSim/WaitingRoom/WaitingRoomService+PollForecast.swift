import QueueClientCore

/// What the room will answer to a visitor's queue-page polls while it waits, known without
/// handling them: the basis of the virtual-time driver's poll shortcut.
///
/// A poll of a ticket that has a place, at a time `t` before its release instant, in a
/// releasing mode, with no fault rule covering queue pages at `t`, is answered `200` with
/// `Retry-After: retryAfterSeconds(releaseAt − t)` after exactly the modelled queue-page latency,
/// and changes nothing in the room but `requestCount`. Because a visitor's n-th request draws
/// its faults and jitter from `(seed, visitor, n)`, skipping requests would renumber the
/// visitor's later ones; so forecasts are
/// offered only when no draw can change an answer (`FaultInjector.drawsAreIrrelevant`), and
/// only when the order of polls at one instant cannot matter (`pollOrderIsIrrelevant`).
package struct QueuePagePollForecast: Sendable, Equatable {
    /// When the ticket's turn comes (the script holds: slots never move once given).
    package var releaseAt: RunInstant
    /// The delay before every forecast answer.
    package var latency: Duration
}

extension WaitingRoomService {
    /// The forecast for the visitor polling `queueId`, or nil when its polls must be handled one
    /// by one (draws matter, unknown id, no place yet, or a turn that never comes).
    package func pollForecast(queueId: String) -> QueuePagePollForecast? {
        // Skipping turns of visitors who left moves release instants: nothing can be forecast.
        guard !model.skipsTurns, faults.drawsAreIrrelevant, faults.pollOrderIsIrrelevant,
            let ticket = model.ticket(forQueueId: queueId),
            let releaseAt = model.releaseInstant(ofTicket: ticket)
        else { return nil }
        return QueuePagePollForecast(releaseAt: releaseAt, latency: faults.baseLatency(endpoint: .queuePage))
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
}
