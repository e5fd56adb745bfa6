import Foundation

/// The mean of a figure over a point's seeds and its 95 % confidence interval, by Student's t:
/// `mean ± t(0.975, n − 1) · s / √n`, with `s` the sample standard deviation. Seeds are
/// independent runs of the same point, so their figures are independent draws; with few seeds
/// (a sweep usually runs 3 to 10) the t quantile, not the normal's 1.96, gives an interval
/// that holds its 95 %. One seed has no interval.
package struct SweepInterval: Sendable, Equatable {
    package var mean: Double
    package var low: Double?
    package var high: Double?
    /// Seeds that had the figure (a wait percentile is missing when nobody waited).
    package var count: Int
    /// Some seed's figure differs from another's. A burst's seeds often change only platform
    /// draws (latency jitter, the pre-queue's shuffle) that leave a figure where it was: the
    /// interval then has no width, which says the seeds do not move it, not that it is certain.
    package var varies: Bool

    package init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        count = values.count
        varies = values.contains { $0 != values[0] }
        mean = values.reduce(0, +) / Double(values.count)
        guard values.count > 1 else { return }
        let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        let deviation = (squares / Double(values.count - 1)).squareRoot()
        let half = Self.tQuantile975(degreesOfFreedom: values.count - 1) * deviation / Double(values.count).squareRoot()
        low = mean - half
        high = mean + half
    }

    /// t(0.975, df) for df 1…30 from the standard table; above 30 the Cornish–Fisher expansion
    /// of the normal quantile (error below 1e-4 there), which tends to 1.959964.
    package static func tQuantile975(degreesOfFreedom df: Int) -> Double {
        let table: [Double] = [
            12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
            2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
            2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
        ]
        if df >= 1, df <= table.count { return table[df - 1] }
        let z = 1.959964
        let n = Double(max(df, 1))
        let g1 = (pow(z, 3) + z) / 4
        let g2 = (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / 96
        let g3 = (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) / 384
        return z + g1 / n + g2 / (n * n) + g3 / (n * n * n)
    }

    /// How the sentence states the interval, after the mean: `95 % interval 7m58s–8m25s`;
    /// `seeds do not vary this figure` when every seed gave the same; `95 % interval 9m30s ±
    /// 12ms` when the ends would read the same; nil with one seed (no interval).
    package func spread(_ format: (Double) -> String) -> String? {
        guard let low, let high else { return nil }
        if !varies { return "seeds do not vary this figure" }
        let (lowText, highText) = (format(low), format(high))
        if lowText == highText { return "95 % interval \(format(mean)) ± \(format((high - low) / 2))" }
        return "95 % interval \(lowText)–\(highText)"
    }
}
