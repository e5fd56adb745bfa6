import QueueClientCore

extension Arrivals {
    /// The most visitors the plan brings within any one second, bursts included: a burst of
    /// 800 on a ramp at 150/s is about 943 in its busiest second, not "peak 150/s" (a burst is
    /// an instant, so `peakRatePerSecond` leaves it out). Expected counts, before `--visitors`.
    package var busiestSecond: Double { busiest(within: 1) }

    /// The most visitors the plan brings within any `window` seconds, bursts included
    /// (expected counts, before `--visitors`): the descriptor preflight's count of Android
    /// enqueue connections held open at once (`DescriptorBudget`).
    package func busiest(within window: Double) -> Double {
        let segments = ArrivalSegment.layout(phases, scale: 1).segments
        // A window's count is piecewise linear or quadratic in its start, with breaks where a
        // segment starts or ends: the busiest window starts or ends at one of those instants.
        var starts: [Double] = []
        for segment in segments {
            let begin = segment.start.secondsDouble
            let end: Double
            switch segment {
            case .burst: end = begin
            case .steady(let steady): end = (steady.start + steady.duration).secondsDouble
            }
            // Just after `t - window` so that a window ending at a burst takes it in.
            starts += [begin, begin - window + 1e-9, end, end - window + 1e-9]
        }
        let busiest = starts.map { Self.arrivals(in: segments, from: $0, window: window) }.max() ?? 0
        return min(busiest, maxVisitors.map(Double.init) ?? .infinity)
    }

    /// Expected arrivals in `[from, from + window)` (seconds).
    private static func arrivals(in segments: [ArrivalSegment], from: Double, window: Double) -> Double {
        let to = from + window
        return segments.reduce(0.0) { total, segment in
            switch segment {
            case .burst(let start, let count):
                let at = start.secondsDouble
                return total + (at >= from && at < to ? Double(count) : 0)
            case .steady(let steady):
                // In the phase's own time: λ(x) = rate + slope·x for x in [0, duration].
                let begin = max(0, from - steady.start.secondsDouble)
                let end = min(steady.duration.secondsDouble, to - steady.start.secondsDouble)
                guard end > begin else { return total }
                return total + steady.rate * (end - begin) + steady.slope * (end * end - begin * begin) / 2
            }
        }
    }
}
