import Foundation

/// `sweep --check-theory`: a point's figures (the mean over its seeds) against the oracle's.
/// A share may differ by at most 2 percentage points, a wait by at most 5 % of the oracle's
/// (both capped at `client.maxWait` first: a run cannot measure a wait beyond it). Figures the
/// theory does not give, or a point where no oracle applies, are not judged.
package struct TheoryCheck: Sendable, Equatable {
    package static let shareTolerance = 0.02
    package static let waitTolerance = 0.05

    /// One judged figure.
    package struct Figure: Sendable, Equatable {
        package var column: String
        package var measured: Double
        package var oracle: Double
        package var unit: SweepMetric.Unit

        package var passed: Bool {
            switch unit {
            case .share: abs(measured - oracle) <= TheoryCheck.shareTolerance + 1e-12
            default: abs(measured - oracle) <= TheoryCheck.waitTolerance * max(oracle, 1) + 1e-9
            }
        }

        /// `passed_share 24.3 % against the theory's 24.5 %`
        package var sentence: String {
            "\(column) \(SweepText.figure(measured, unit)) against the theory's \(SweepText.figure(oracle, unit))"
        }
    }

    package var figures: [Figure]

    package var passed: Bool { figures.allSatisfy(\.passed) }

    /// The check of one point: `means[i]` is the mean of `metrics[i]` over the point's seeds.
    package init(metrics: [SweepMetric], means: [Double?], oracle: TheoryOracle, maxWaitMs: Double) {
        figures = zip(metrics, means).compactMap { metric, mean in
            guard let mean, let expected = oracle.value(of: metric) else { return nil }
            guard metric.unit == .share || Self.isWait(metric) else { return nil }
            let cap = metric.unit == .share ? Double.infinity : maxWaitMs
            return Figure(
                column: metric.column, measured: min(mean, cap), oracle: min(expected, cap), unit: metric.unit)
        }
    }

    static func isWait(_ metric: SweepMetric) -> Bool {
        if case .measured(.timing(.wait, _), _) = metric.source { return true }
        return false
    }
}
