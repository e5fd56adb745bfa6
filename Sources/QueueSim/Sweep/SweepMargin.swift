import Foundation

/// How much larger a crowd the answer survives: `arrivals.scale` multiplied by a factor
/// above 1 at the answer's value, until a goal fails. The factor grows from 1 % by doubling
/// steps (1.01, 1.02, 1.04, … up to `mostFactor`) until a probe fails, then bisection narrows
/// the gap between the last factor that passed and the first that failed to `precision`.
/// An answer just inside its bracket survives little (often under 1 %), so the steps start
/// small; an answer far inside survives much, and the doubling reaches it in a few probes.
package enum SweepMargin {
    package struct Outcome: Sendable, Equatable {
        /// The largest factor that met every goal (1 when the first step failed).
        package var surviving: Double
        /// The smallest factor that failed a goal; nil when every factor up to the most tried passed.
        package var failing: Double?
        package var probes: [SweepBisection.Probe]
        /// A probe could not be run to the end (interrupted, or a crowd that large does not fit).
        package var stopped: Bool
    }

    /// The first step above 1 and the largest factor tried.
    package static let firstStep = 0.01
    package static let mostFactor = 2.0
    /// The margin's precision: a tenth of a percent of the crowd.
    package static let precision = 0.001

    /// The most probes a margin search makes: the doubling steps up to `mostFactor`, then a
    /// bisection of the last step to `precision`.
    package static var mostProbes: Int {
        let doublings = Int(log2((mostFactor - 1) / firstStep).rounded(.up)) + 1
        return doublings + SweepBisection.mostProbes(width: (mostFactor - 1) / 2, precision: precision)
    }

    /// `probe(factor)` answers whether the crowd multiplied by `factor` still meets every goal,
    /// nil when it could not be run.
    package static func find(probe: (Double) throws -> Bool?) rethrows -> Outcome {
        var outcome = Outcome(surviving: 1, failing: nil, probes: [], stopped: false)
        var step = firstStep
        while outcome.failing == nil {
            let factor = min(1 + step, mostFactor)
            guard let passed = try probe(factor) else {
                outcome.stopped = true
                return outcome
            }
            outcome.probes.append(SweepBisection.Probe(value: factor, passed: passed))
            if passed { outcome.surviving = factor } else { outcome.failing = factor }
            if factor >= mostFactor { break }
            step *= 2
        }
        guard let failing = outcome.failing else { return outcome }
        let narrowed = try SweepBisection.refine(
            failing: failing, passing: outcome.surviving, precision: precision, probe: probe)
        outcome.surviving = narrowed.passing
        outcome.failing = narrowed.failing
        outcome.probes += narrowed.probes
        outcome.stopped = narrowed.stopped
        return outcome
    }
}
