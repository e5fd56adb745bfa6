import Foundation
import QueueClientCore

/// The fluid model of a waiting room: visitors as a continuous mass arriving along the
/// scenario's cumulative arrival curve, released at the outflow rate from the event start,
/// first come first served (the pre-queue, everyone who arrived by the event start, in a
/// random order). Deterministic and instant: `queuesim sweep` draws it beside the simulated
/// wait p95, and a test holds the sweep's answer to it.
///
/// For a burst of N at the event start and outflow r the visitor at position x waits x/r, so
/// the wait p95 is 0.95·N/r. For any other plan the mass is cut into `chunks` equal slices in
/// arrival order and each slice is served after the one before it (Lindley's recursion on the
/// fluid): a slice of Δ visitors arriving at a leaves at max(a, previous leave) + Δ/r. The
/// percentile is read from the resulting distribution of waits by bisection.
///
/// What it leaves out, and the simulation has: the poll interval (a visitor learns of its
/// turn at its next poll, so simulated waits are longer by up to one interval), `client.maxWait`
/// (the simulation stops waits there), and visitors who give up.
package struct FluidQueue: Sendable {
    /// Cumulative arrival segments (`ArrivalSegment.layout`), already scaled.
    let segments: [ArrivalSegment]
    let maxVisitors: Int?
    /// Seconds since the run's origin.
    let eventStart: Double
    /// The room's outflow (its rates from the run's start; releases begin at the event start).
    package let outflow: OutflowSchedule
    /// `visitorsBefore[i]`: the visitors of `segments[0..<i]`, summed in order, so that
    /// `arrivalTime` finds a position's segment by bisection (a replayed crowd has a segment
    /// per row: a day of seconds is 86,400 of them, too many to walk for every slice).
    let visitorsBefore: [Double]

    static let chunks = 4_000

    package init(arrivals: Arrivals, scale: Double = 1, eventStart: Duration, outflow: OutflowSchedule) {
        segments = ArrivalSegment.layout(arrivals.phases, scale: scale).segments
        maxVisitors = arrivals.maxVisitors
        self.eventStart = eventStart.secondsDouble
        self.outflow = outflow
        var before = [0.0]
        for segment in segments {
            switch segment {
            case .burst(_, let count): before.append(before[before.count - 1] + Double(count))
            case .steady(let steady): before.append(before[before.count - 1] + steady.integral)
            }
        }
        visitorsBefore = before
    }

    /// A plain outflow, or one with `outflowChanges`.
    package init(
        arrivals: Arrivals, scale: Double = 1, eventStart: Duration, outflowPerSecond: Double,
        outflowChanges: [OutflowChange] = []
    ) {
        self.init(
            arrivals: arrivals, scale: scale, eventStart: eventStart,
            outflow: OutflowSchedule(first: outflowPerSecond, changes: outflowChanges))
    }

    /// The fluid model for a scenario's room, or nil where it does not apply: a room that is
    /// not a plain queue (another mode, scripted faults) or never releases anyone. The
    /// scenario's arrivals are already multiplied by `arrivals.scale`.
    package init?(scenario: Scenario) {
        // Visitors who give up, and no-shows, leave the queue early: this model's waits (everyone
        // stays) do not apply, so a sweep shows no fluid prediction for such scenarios.
        guard let room = scenario.waitingRoom, room.mode == .queue, room.faults.isEmpty, room.outflow.releasesAnyone,
            scenario.groups.allSatisfy({ $0.behaviour.patience == nil && ($0.behaviour.noShow ?? 0) == 0 })
        else { return nil }
        self.init(arrivals: scenario.arrivals, eventStart: room.eventStart, outflow: room.outflow)
    }

    /// Visitors the plan brings (the mass of the curve).
    package var visitors: Double {
        let total = segments.reduce(0.0) { total, segment in
            switch segment {
            case .steady(let steady): total + steady.integral
            case .burst(_, let count): total + Double(count)
            }
        }
        return maxVisitors.map { min(total, Double($0)) } ?? total
    }

    /// The wait (seconds in the queue page) that `fraction` of the visitors do not exceed,
    /// e.g. 0.95 for the p95; nil for a plan without visitors.
    package func waitPercentile(_ fraction: Double) -> Double? {
        waits()?.percentile(fraction)
    }

    /// When the visitor at cumulative position `position` arrives, in seconds.
    func arrivalTime(ofVisitor position: Double) -> Double {
        // The first segment whose end lies past `position`.
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if position < visitorsBefore[middle + 1] { high = middle } else { low = middle + 1 }
        }
        if low < segments.count {
            switch segments[low] {
            case .burst(let start, _): return start.secondsDouble
            case .steady(let steady):
                return steady.instant(atCumulative: position - visitorsBefore[low]).sinceOrigin.secondsDouble
            }
        }
        guard let last = segments.last else { return 0 }
        switch last {
        case .burst(let start, _): return start.secondsDouble
        case .steady(let steady): return (steady.start + steady.duration).secondsDouble
        }
    }

    // Visitors who give up (exponential patience with mean θ), for a burst of N at the event
    // start and outflow r: the closed forms of issue 30's oracles, for the room's two ways of
    // counting the turn of a visitor who left.

    /// The share of visitors who give up, where the closed forms below apply: every visitor
    /// arrives in one burst at or before the event start, every group has exponential patience
    /// of the same mean θ and no comebacks, and the room is a plain queue (no scripted faults,
    /// one outflow r). Nil for any other scenario.
    ///
    /// Patience is memoryless, so a burst that arrives at b, before the event start s, reaches
    /// it with N·e^(−(s−b)/θ) visitors still there, and the closed forms run from s: with
    /// skipped turns from those, with wasted turns over all N tickets (each ticket's turn comes
    /// whether its visitor is there or not).
    package static func abandonedShare(scenario: Scenario) -> Double? {
        guard let room = scenario.waitingRoom, room.mode == .queue, room.faults.isEmpty, room.outflowChanges.isEmpty,
            room.outflowPerSecond > 0, let first = scenario.groups.first,
            case .exponential(let mean)? = first.behaviour.patience, mean > .zero,
            scenario.groups.allSatisfy({ $0.behaviour.patience == first.behaviour.patience })
        else { return nil }
        // A comeback is a new enqueue at the back of the queue, a no-show leaves at once: not in
        // the closed forms.
        guard
            scenario.groups.allSatisfy({ ($0.behaviour.comeback?.share ?? 0) == 0 && ($0.behaviour.noShow ?? 0) == 0 })
        else { return nil }
        let segments = ArrivalSegment.layout(scenario.arrivals.phases, scale: 1).segments
        var burstStart: Duration?
        for segment in segments {
            switch segment {
            case .steady(let steady) where steady.integral > 0:
                return nil
            case .steady:
                continue
            case .burst(let start, let count):
                guard count > 0 else { continue }
                guard burstStart == nil || burstStart == start else { return nil }
                burstStart = start
            }
        }
        guard let burstStart, burstStart <= room.eventStart else { return nil }
        let model = FluidQueue(
            arrivals: scenario.arrivals, eventStart: room.eventStart, outflowPerSecond: room.outflowPerSecond)
        let n = model.visitors
        guard n > 0 else { return nil }
        let theta = mean.secondsDouble
        let r = room.outflowPerSecond
        let stillThere = exp(-(room.eventStart - burstStart).secondsDouble / theta)
        let passed: Double
        switch room.abandonedTurns {
        case .skipped:
            passed = min(
                n * stillThere,
                r * burstQueueEmptiesSkippingTurns(visitors: n * stillThere, outflow: r, meanPatience: theta))
        case .wasted:
            passed = stillThere * burstPassedWastingTurns(visitors: n, outflow: r, meanPatience: theta)
        }
        return max(0, 1 - passed / n)
    }

    /// Turns of visitors who left are skipped: the queue holds q(t) with q' = −r − q/θ, so it
    /// empties at θ·ln(1 + N/(rθ)).
    package static func burstQueueEmptiesSkippingTurns(
        visitors n: Double, outflow r: Double, meanPatience theta: Double
    )
        -> Double
    {
        theta * log(1 + n / (r * theta))
    }

    /// Turns of visitors who left are wasted (the room releases r a second whoever is still
    /// there): the turn at t finds its visitor with probability e^(−t/θ), and the queue's turns
    /// run out at N/r, so rθ(1 − e^(−N/(rθ))) pass.
    package static func burstPassedWastingTurns(visitors n: Double, outflow r: Double, meanPatience theta: Double)
        -> Double
    {
        r * theta * (1 - exp(-n / (r * theta)))
    }
}
