import Foundation
import Histogram

/// How far a figure of one run could move by chance alone: a 95 % interval around it. Two runs
/// whose intervals overlap differ by no more than chance explains, so `compare` calls that
/// difference noise rather than a regression.
///
/// - A share `k` of `n` (`error`, `passed`): the Wilson score interval, which stays inside 0…1
///   and behaves for shares near 0 (where a nightly's `error` share lives).
/// - A percentile of `n` timings: the distribution-free interval of order statistics — the
///   ranks `nq ± 1.96·√(nq(1−q))` read from the run's own histogram — so nothing is assumed
///   about the shape of waits.
/// - A mean: ± 1.96 standard errors. A maximum or a minimum has no interval (one visitor
///   decides it): such a difference is judged as it stands.
///
/// Visitors of a run are independent draws (each from the seed and its own number), so these
/// intervals also estimate the spread between two seeds of a virtual run.
package struct NoiseInterval: Sendable, Equatable {
    package var lower: Double
    package var upper: Double

    package func overlaps(_ other: NoiseInterval) -> Bool {
        lower <= other.upper && other.lower <= upper
    }
}

package enum NoiseBand {
    /// The normal quantile of a two-sided 95 % interval.
    static let z = 1.959964

    package static func share(_ count: Int, of total: Int) -> NoiseInterval? {
        guard total > 0 else { return nil }
        let n = Double(total)
        let p = Double(count) / n
        let z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / (1 + z2 / n)
        return NoiseInterval(lower: max(0, centre - half), upper: min(1, centre + half))
    }

    /// The interval of the `percentile` (0–100) of the values in `histogram`.
    package static func percentile(_ percentile: Double, of histogram: Histogram<UInt64>) -> NoiseInterval? {
        let total = histogram.totalCount
        guard total > 0 else { return nil }
        let n = Double(total)
        let q = percentile / 100
        let spread = z * (n * q * (1 - q)).squareRoot()
        let lowerRank = max(1, (n * q - spread).rounded(.down))
        let upperRank = min(n, (n * q + spread).rounded(.up) + 1)
        return NoiseInterval(
            lower: Double(histogram.valueAtPercentile(100 * lowerRank / n)),
            upper: Double(histogram.valueAtPercentile(100 * upperRank / n)))
    }

    package static func mean(of histogram: Histogram<UInt64>) -> NoiseInterval? {
        let total = histogram.totalCount
        guard total > 1 else { return nil }
        let half = z * histogram.stdDeviation / Double(total).squareRoot()
        return NoiseInterval(lower: histogram.mean - half, upper: histogram.mean + half)
    }
}
