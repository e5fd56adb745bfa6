/// What a scenario's arrival phases add up to, for summaries and for sizing plans.
extension ArrivalPhase {
    /// The visitors this phase brings: rate × duration for a steady phase (the average of
    /// `rate` and `rampTo` for a ramp), rounded to the nearest visitor; the count for a burst.
    package var plannedVisitorCount: Int {
        Int(expectedVisitors.rounded())
    }

    /// The same count before rounding, as a Double: the validator compares it with
    /// `ScenarioLimits.mostVisitors` before anything converts it to an Int.
    var expectedVisitors: Double {
        switch self {
        case .steady(let duration, let rate, let rampTo):
            let average = (rate + (rampTo ?? rate)) / 2
            return average * duration.secondsDouble
        case .burst(let count): return Double(count)
        case .pause: return 0
        }
    }

    /// How long the phase lasts on the timeline (a burst takes no time).
    package var duration: Duration {
        switch self {
        case .steady(let duration, _, _), .pause(let duration): return duration
        case .burst: return .zero
        }
    }
}

extension Arrivals {
    /// The visitors all phases bring, capped by `maxVisitors`.
    package var plannedVisitorCount: Int {
        let total = phases.reduce(0) { $0 + $1.plannedVisitorCount }
        return maxVisitors.map { min($0, total) } ?? total
    }

    /// From the first arrival to the end of the last phase.
    package var plannedDuration: Duration {
        phases.reduce(.zero) { $0 + $1.duration }
    }

    /// The highest per-second rate of any steady phase (bursts are instants, not rates).
    package var peakRatePerSecond: Double {
        phases.reduce(0) { peak, phase in
            guard case .steady(_, let rate, let rampTo) = phase else { return peak }
            return max(peak, rate, rampTo ?? 0)
        }
    }
}
