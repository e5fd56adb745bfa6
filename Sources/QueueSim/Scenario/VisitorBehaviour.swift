import Foundation

// The scenario model (Scenario.swift): how a group's visitors behave beyond the SDK — how long
// they stay on the queue page, whether they reopen the app, what they do after passing.

/// A duration drawn per visitor: `{ fixed: 10m }`, `{ mean: 8m }` (exponential),
/// `{ lognormal: { median: 6m, sigma: 0.8 } }`, or `{ csv: FILE, column: NAME }` (a row picked
/// uniformly per draw).
package enum DurationDistribution: Sendable, Equatable {
    case fixed(Duration)
    case exponential(mean: Duration)
    case lognormal(median: Duration, sigma: Double)
    /// The column's durations, in file order (validated: at least one, none negative).
    case samples([Duration])

    /// One draw from `random` (a stream of the visitor's own, so the draw does not depend on
    /// scheduling). Whole nanoseconds, at most `ScenarioLimits.longestDuration`.
    package func draw(_ random: inout SeededRandom) -> Duration {
        switch self {
        case .fixed(let value):
            return value
        case .exponential(let mean):
            // 1 − u is in (0, 1]: the logarithm is finite.
            let unit = 1 - random.nextUnit()
            return Self.clamped(-log(unit) * mean.secondsDouble)
        case .lognormal(let median, let sigma):
            return Self.clamped(median.secondsDouble * exp(sigma * Self.standardNormal(&random)))
        case .samples(let values):
            let pick = Int(random.next().multipliedFullWidth(by: UInt64(values.count)).high)
            return values[pick]
        }
    }

    /// The mean of the distribution, in seconds (the docs' fluid model, the sweep's figures).
    package var meanSeconds: Double {
        switch self {
        case .fixed(let value): value.secondsDouble
        case .exponential(let mean): mean.secondsDouble
        case .lognormal(let median, let sigma): median.secondsDouble * exp(sigma * sigma / 2)
        case .samples(let values): values.map(\.secondsDouble).reduce(0, +) / Double(values.count)
        }
    }

    /// Box–Muller from two uniform draws; `1 − u` keeps the logarithm finite.
    private static func standardNormal(_ random: inout SeededRandom) -> Double {
        let radius = (-2 * log(1 - random.nextUnit())).squareRoot()
        return radius * cos(2 * Double.pi * random.nextUnit())
    }

    private static func clamped(_ seconds: Double) -> Duration {
        let bounded = min(max(seconds, 0), ScenarioLimits.longestDuration.secondsDouble)
        return .nanoseconds(Int64((bounded * 1e9).rounded()))
    }
}

/// `comeback: { share: 30%, after: { mean: 2m }, max: 1 }`: a share of the visitors who abandon
/// reopen the app after a drawn delay and enqueue anew (the SDKs keep no queue URL, so it is a
/// new queue id at the back of the queue). Each abandonment draws again, at most `max` times.
package struct ComebackBehaviour: Sendable, Equatable {
    package var share: Double
    package var after: DurationDistribution
    package var max: Int

    package init(share: Double, after: DurationDistribution, max: Int = 1) {
        self.share = share
        self.after = after
        self.max = max
    }
}

/// `afterPass: { calls: 5, thinkTime: { mean: 20s }, noShow: 10% }`: what a visitor who
/// passed does next, unless drawn a no-show — `calls` requests to the protected API with its
/// token, then its cookie, each after a drawn think time.
package struct AfterPassBehaviour: Sendable, Equatable {
    package var calls: Int
    package var thinkTime: DurationDistribution
    package var noShow: Double

    package init(calls: Int, thinkTime: DurationDistribution, noShow: Double = 0) {
        self.calls = calls
        self.thinkTime = thinkTime
        self.noShow = noShow
    }
}

/// A group's behaviour keys together (all nil: the visitors of the SDK alone, who wait for
/// ever and vanish on passing).
package struct VisitorBehaviour: Sendable, Equatable {
    package var patience: DurationDistribution?
    package var comeback: ComebackBehaviour?
    package var afterPass: AfterPassBehaviour?
    /// `noShow: 5%` (0...1): the share of the group whose turn goes unused whatever their wait
    /// (a second tab, an app closed before the queue page). Such a visitor enqueues, gets its
    /// queue number and leaves the queue page at once, for good (no comeback): `abandoned`,
    /// cause `no-show`. Not `afterPass.noShow`, which is about visitors who did pass.
    package var noShow: Double?

    package init(
        patience: DurationDistribution? = nil, comeback: ComebackBehaviour? = nil, afterPass: AfterPassBehaviour? = nil,
        noShow: Double? = nil
    ) {
        self.patience = patience
        self.comeback = comeback
        self.afterPass = afterPass
        self.noShow = noShow
    }

    package var isEmpty: Bool { patience == nil && comeback == nil && afterPass == nil && (noShow ?? 0) == 0 }
}

// In words, for `validate`, run.json's `configuration` and the page's groups table.
extension DurationDistribution {
    package var summary: String {
        switch self {
        case .fixed(let value): ScenarioUnits.describe(value)
        case .exponential(let mean): "exponential, mean \(ScenarioUnits.describe(mean))"
        case .lognormal(let median, let sigma):
            "log-normal, median \(ScenarioUnits.describe(median)), sigma \(ThresholdTable.trimmed(sigma, decimals: 3))"
        case .samples(let values): "drawn from \(values.count) durations of a CSV file"
        }
    }
}

extension ComebackBehaviour {
    package var summary: String {
        "\(PercentText.of(share)) of those who give up reopen the app after \(after.summary), at most \(max) time\(max == 1 ? "" : "s")"
    }
}

extension AfterPassBehaviour {
    package var summary: String {
        "\(calls) protected API call\(calls == 1 ? "" : "s"), think time \(thinkTime.summary), no-shows \(PercentText.of(noShow))"
    }
}
