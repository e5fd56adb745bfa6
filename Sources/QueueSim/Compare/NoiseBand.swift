import Foundation
import Histogram

/// How far a figure of one run could move by chance alone. `compare` reads it, in this order of
/// preference (docs/compare.md, "Noise"):
///
/// - several base runs: the spread of the figure across them (`acrossRuns`), the direct
///   measure of what another seed does;
/// - one base run: batch means (`batchMeans`) — the run's visitors in arrival order in twenty
///   batches, the figure per batch, and the standard error from the batch figures' spread.
///   Queue waits are autocorrelated, so the visitors are not independent draws and intervals
///   that treat them so (below) are far too narrow; batches are;
/// - a run too small for batches (fewer than `minimumBatches` batches with a value): the
///   per-visitor intervals below, as a last resort.
///
/// The per-visitor intervals: a share `k` of `n`, the Wilson score interval; a percentile, the
/// distribution-free interval of order statistics; a mean, ± 1.96 standard errors. A maximum
/// or a minimum has no band (one visitor decides it): such a difference is judged as it stands.
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
    /// Batches with a value below this say too little about a spread (a group of a handful of
    /// visitors, a timing few visitors have): the per-visitor intervals stand in.
    static let minimumBatches = 8

    /// A standard error and the degrees of freedom it was estimated with.
    package struct Spread: Sendable, Equatable {
        package var standardError: Double
        package var degreesOfFreedom: Int
    }

    /// The standard error of a run's figure from the figure of each of its batches:
    /// the batch figures' standard deviation over √(batches). Nil below `minimumBatches`.
    package static func batchMeans(_ batchFigures: [Double]) -> Spread? {
        guard batchFigures.count >= minimumBatches else { return nil }
        return Spread(
            standardError: deviation(batchFigures) / Double(batchFigures.count).squareRoot(),
            degreesOfFreedom: batchFigures.count - 1)
    }

    /// The spread of one more run around the mean of `runs` figures (a prediction interval's
    /// `s·√(1 + 1/n)`), so the band of a new run against several bases. Nil below two runs.
    package static func acrossRuns(_ figures: [Double]) -> Spread? {
        guard figures.count >= 2 else { return nil }
        let count = Double(figures.count)
        return Spread(
            standardError: deviation(figures) * (1 + 1 / count).squareRoot(), degreesOfFreedom: figures.count - 1)
    }

    /// The half-width of the 95 % band of a difference between two figures with these spreads.
    package static func differenceBand(_ spreads: [Spread]) -> Double {
        let variance = spreads.reduce(0) { $0 + $1.standardError * $1.standardError }
        let degrees = spreads.map(\.degreesOfFreedom).min() ?? 1
        return SweepInterval.tQuantile975(degreesOfFreedom: max(1, degrees)) * variance.squareRoot()
    }

    /// The spread a per-visitor 95 % interval stands for (its half-width over 1.96).
    package static func spread(of interval: NoiseInterval, visitors: Int) -> Spread {
        Spread(standardError: (interval.upper - interval.lower) / (2 * z), degreesOfFreedom: max(1, visitors - 1))
    }

    /// The sample standard deviation.
    static func deviation(_ values: [Double]) -> Double {
        guard values.count > 1 else { return 0 }
        let mean = values.reduce(0, +) / Double(values.count)
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (squares / Double(values.count - 1)).squareRoot()
    }

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
