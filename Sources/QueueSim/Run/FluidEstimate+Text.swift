import Foundation

extension FluidEstimate {
    /// The lines `validate` prints, every figure marked as the estimate it is:
    ///
    ///     fluid estimate: wait p50 about 25m 0s, p95 about 47m 30s
    ///     about 60% get through within maxWait 30m; peak queue about 250,000 visitors (at 10m)
    ///     outflow needed for wait.p95 < 20m: about 9,670/min
    ///
    /// With patience, the model with abandonment's figures instead (`patienceLines`).
    package var lines: [String] {
        let caveat = leftOut.isEmpty ? "" : " (leaves out \(leftOut.joined(separator: " and ")))"
        var lines = [
            "fluid estimate\(caveat): wait p50 \(Self.wait(waitP50)), p95 \(Self.wait(waitP95))",
            "\(Self.share(shareWithinMaxWait)) get through within maxWait \(ScenarioUnits.describe(maxWait)); \(queue)",
        ]
        if let patience { lines = patienceLines(patience, caveat: caveat) }
        if patience == nil, let runStop, emptiesAt > runStop.secondsDouble + 0.5 {
            lines.append(
                "the queue empties at \(Self.wait(emptiesAt)), after the run stops at \(ScenarioUnits.describe(runStop)) "
                    + "(run.duration): waits still open then are cut there")
        }
        for need in needs {
            guard let factor = need.factor else {
                lines.append(
                    "outflow needed for \(need.threshold): none is enough (visitors who come before the event start wait for it)"
                )
                continue
            }
            guard factor > 0 else {
                lines.append(
                    "outflow needed for \(need.threshold): any (met whatever the outflow: those who give up end their waits)"
                )
                continue
            }
            lines.append("outflow needed for \(need.threshold): about \(outflow(times: factor))")
        }
        return lines
    }

    /// The first lines with patience:
    ///
    ///     fluid estimate (with patience exponential, mean 10m, turns wasted): about 39% pass,
    ///       about 61% give up; those who pass wait p50 about 3m 10s, p95 about 6m 2s
    ///     wait p95 of all who queued (as wait thresholds judge it) about 8m 29s; peak queue …
    func patienceLines(_ patience: PatienceEstimate, caveat: String) -> [String] {
        var first =
            "fluid estimate (with \(patience.condition))\(caveat): \(Self.share(patience.passedShare)) pass, "
            + "\(Self.share(patience.abandonedShare)) give up"
        if patience.queuedShare >= 0.005 {
            first += ", \(Self.share(patience.queuedShare)) still queued at maxWait \(ScenarioUnits.describe(maxWait))"
        }
        first +=
            patience.passedShare > 0
            ? "; those who pass wait p50 \(Self.wait(patience.passedWaitP50)), p95 \(Self.wait(patience.passedWaitP95))"
            : ""
        let queue =
            patience.peakQueue >= 1
            ? "peak queue about \(ScenarioUnits.grouped(max(1, Self.significant(patience.peakQueue, rounding: .toNearestOrAwayFromZero).rounded()))) visitors (at \(Self.instant(patience.peakQueueAt)))"
            : "no queue (the outflow keeps up)"
        return [
            first,
            "wait p95 of all who queued (as wait thresholds judge it) \(Self.wait(patience.waitP95)); \(queue)",
        ]
    }

    /// `9,670/min`, or for a schedule `1.94× the schedule: 1,170/min, 2,330/min from 10m`:
    /// per minute, as an admin types the outflow, rounded up (a need rounded down falls short).
    func outflow(times factor: Double) -> String {
        func perMinute(_ perSecond: Double) -> String {
            "\(ScenarioUnits.grouped(Self.significant(perSecond * factor * 60, rounding: .up)))/min"
        }
        guard !outflow.isPlain else { return perMinute(outflow.firstPerSecond) }
        let steps =
            [perMinute(outflow.firstPerSecond)]
            + outflow.changes.map { "\(perMinute($0.perSecond)) from \(ScenarioUnits.describe($0.at))" }
        return "\(ScenarioUnits.grouped(Self.significant(factor, rounding: .up)))× the schedule: "
            + steps.joined(separator: ", ")
    }

    /// `peak queue about 1,650 visitors (at 10s)`; `no queue` when the outflow keeps up.
    private var queue: String {
        guard peakQueue >= 1 else { return "no queue (the outflow keeps up)" }
        let visitors = max(1, Self.significant(peakQueue, rounding: .toNearestOrAwayFromZero).rounded())
        return "peak queue about \(ScenarioUnits.grouped(visitors)) visitors (at \(Self.instant(peakQueueAt)))"
    }

    /// `about 11s`, to the second (the model knows nothing finer: a visitor polls every few
    /// seconds), or `under 1s`.
    static func wait(_ seconds: Double) -> String {
        seconds < 1 ? "under 1s" : "about " + ThresholdTable.formatMilliseconds(seconds.rounded() * 1000)
    }

    /// When, on the run's clock: `0s`, `10m 0s`.
    static func instant(_ seconds: Double) -> String {
        seconds < 0.5 ? "0s" : ThresholdTable.formatMilliseconds(seconds.rounded() * 1000)
    }

    /// `about 60%`; never `100%` for a share short of it, nor `0%` for one above nothing.
    static func share(_ fraction: Double) -> String {
        let percent = fraction * 100
        if percent >= 100 { return "all" }
        if percent <= 0 { return "none" }
        if percent < 1 { return "under 1%" }
        if percent > 99 { return "about \(ScenarioUnits.grouped((percent * 10).rounded(.down) / 10))%" }
        return "about \(Int(percent.rounded()))%"
    }

    /// `value` to three significant figures: the model's slices are 1/4,000 of the crowd. A
    /// millionth is forgiven before rounding up (the bisection stops within 1e-7 above).
    static func significant(_ value: Double, rounding: FloatingPointRoundingRule) -> Double {
        guard value > 0, value.isFinite else { return max(0, value) }
        let step = pow(10, (log10(value)).rounded(.down) - 2)
        return (value / step * (1 - 1e-6)).rounded(rounding) * step
    }
}
