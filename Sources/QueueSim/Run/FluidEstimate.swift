import Foundation
import QueueClientCore

/// What `queuesim validate` says about an embedded queue before anything runs, from the fluid
/// model (`FluidQueue`, docs/waiting-room.md): the waits to expect, the share that gets through
/// within `client.maxWait`, the longest the queue grows, and for each wait threshold the
/// outflow it needs, found by bisection on the model. Instant (4,000 slices, no visitor built),
/// so the launch question ("300,000 in 10 minutes at 5,000/min: will 95 % get through within
/// 20 minutes, and what outflow do we need?") is answered before a run is started.
///
/// Every figure is an estimate: the model has no poll interval (a simulated visitor learns of
/// its turn at its next poll), no `maxWait` cap, and leaves out what `leftOut` names.
package struct FluidEstimate: Sendable, Equatable {
    /// The outflow one wait threshold needs.
    package struct Need: Sendable, Equatable {
        /// As the scenario writes it: `wait.p95 < 20m`.
        package var threshold: String
        /// The factor on the room's outflow (every rate of a schedule) at which the threshold
        /// just holds; nil when no outflow is enough (visitors who come before the event start
        /// wait for it whatever the outflow).
        package var factor: Double?
    }

    /// The room's outflow, at which the figures hold.
    package var outflow: OutflowSchedule
    package var maxWait: Duration
    /// Seconds.
    package var waitP50: Double
    package var waitP95: Double
    /// Of all visitors, 0...1: those whose wait is at most maxWait.
    package var shareWithinMaxWait: Double
    /// Visitors, and when (seconds since the run's origin).
    package var peakQueue: Double
    package var peakQueueAt: Double
    /// When the last visitor leaves the queue (seconds since the run's origin).
    package var emptiesAt: Double
    /// `run.duration`: a run that stops before the queue empties cuts the waits left.
    package var runStop: Duration?
    package var needs: [Need]
    /// What the scenario has and the model leaves out, in words.
    package var leftOut: [String]
    /// With patience (the same in every group) or no-shows: the figures under them, from the
    /// model with abandonment; `needs` are then that model's too. Nil: nobody leaves early, or
    /// the groups differ (then `leftOut` names them).
    package var patience: PatienceEstimate? = nil

    /// Nil unless the scenario runs the embedded room in `queue` mode with an outflow: a real
    /// endpoint's outflow is unknown, and another mode does not queue. `scale` is the factor
    /// `--visitors` applies to the plan (`PlanSummary.scale`).
    package static func of(_ scenario: Scenario, scale: Double = 1) -> FluidEstimate? {
        guard let room = scenario.waitingRoom, room.mode == .queue, room.outflow.releasesAnyone else { return nil }
        func model(_ factor: Double) -> FluidQueue {
            FluidQueue(
                arrivals: scenario.arrivals, scale: scale, eventStart: room.eventStart,
                outflow: room.outflow.scaled(by: factor))
        }
        let base = model(1)
        let arrivals = base.sliceArrivals()
        guard let waits = base.waits(sliceArrivals: arrivals) else { return nil }
        let patience = withPatience(scenario, scale: scale)
        let needs =
            patience?.1
            ?? scenario.thresholds.compactMap { threshold -> Need? in
                guard let question = WaitQuestion(threshold) else { return nil }
                return Need(
                    threshold: threshold.source,
                    factor: neededFactor(question) { model($0).waits(sliceArrivals: arrivals) })
            }
        var leftOut: [String] = []
        if !room.faults.isEmpty { leftOut.append("the scripted faults") }
        if patience == nil, scenario.groups.contains(where: { $0.behaviour.patience != nil }) {
            leftOut.append("visitors who give up (the groups' patience differs)")
        }
        if patience == nil, scenario.groups.contains(where: { ($0.behaviour.noShow ?? 0) > 0 }) {
            leftOut.append("the no-shows (noShow)")
        }
        // Without patience the lines say when the queue empties after the stop; with it the
        // model runs to the end.
        if patience != nil, scenario.run.duration != nil { leftOut.append("the stop at run.duration") }
        return FluidEstimate(
            outflow: room.outflow, maxWait: scenario.client.maxWait, waitP50: waits.percentile(0.5),
            waitP95: waits.percentile(0.95),
            shareWithinMaxWait: waits.share(within: scenario.client.maxWait.secondsDouble),
            peakQueue: waits.peakQueue, peakQueueAt: waits.peakQueueAt, emptiesAt: waits.emptiesAt,
            runStop: scenario.run.duration, needs: needs, leftOut: leftOut, patience: patience?.0)
    }

    /// A threshold the model can answer: an upper bound on a percentile (or the longest) of
    /// the wait, over the whole run. A group's waits are the room's (groups are drawn at random
    /// from one first-come-first-served queue), so a group's threshold is answered too.
    struct WaitQuestion {
        /// 0.95 for `p95`, 1 for `max`.
        var fraction: Double
        var limitSeconds: Double
        var strict: Bool

        init?(_ threshold: Threshold) {
            guard threshold.window == nil, case .timing(.wait, let statistic) = threshold.metric else { return nil }
            switch statistic {
            case .percentile(let percentile): fraction = percentile / 100
            case .max: fraction = 1
            case .min, .mean: return nil
            }
            switch threshold.comparator {
            case .lessThan: strict = true
            case .lessOrEqual: strict = false
            default: return nil
            }
            limitSeconds = threshold.limit / 1000
        }

        /// Whether the waits answer it: `fraction` of them below (or at) the limit.
        func holds(_ waits: FluidWaits) -> Bool { holds { waits.share(within: $0) } }

        /// The same for any distribution of waits: `share(w)` of the visitors wait at most w.
        func holds(share: (Double) -> Double) -> Bool {
            // The share is right-continuous: p < L exactly when the share just below L reaches it.
            let at = strict ? limitSeconds * (1 - 1e-9) - 1e-9 : limitSeconds
            return at >= 0 && share(at) >= fraction - 1e-12
        }
    }

    /// The smallest factor on the outflow at which `question` holds, to 1e-5 %: bracketed by
    /// halving or doubling from the room's own outflow, then bisected (the fluid waits only
    /// shrink as the outflow grows). Nil when 2^40 times the outflow is still not enough.
    static func neededFactor(_ question: WaitQuestion, waits: (Double) -> FluidWaits?) -> Double? {
        neededFactor(tolerance: 1e-7) { waits($0).map(question.holds) ?? false }
    }

    /// The smallest factor at which `holds` (false below it, true above), to `tolerance`
    /// relative, by the same bracketing and bisection; 0 when it still holds after `halvings`
    /// halvings (met whatever the outflow).
    static func neededFactor(tolerance: Double, halvings: Int = 60, holds: (Double) -> Bool) -> Double? {
        var low = 1.0
        var high = 1.0
        if holds(1) {
            var failed = false
            for _ in 0..<halvings where !failed {
                low /= 2
                failed = !holds(low)
                if !failed { high = low }
            }
            if !failed, halvings < 60 { return 0 }
        } else {
            var found = false
            for _ in 0..<40 where !found {
                low = high
                high *= 2
                found = holds(high)
            }
            guard found else { return nil }
        }
        while high / low > 1 + tolerance {
            let middle = (low * high).squareRoot()
            if holds(middle) { high = middle } else { low = middle }
        }
        return high
    }
}
