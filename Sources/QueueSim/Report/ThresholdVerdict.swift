import Histogram
import QueueClientCore

/// A threshold judged against a finished run.
package struct ThresholdVerdict: Sendable, Equatable {
    package var threshold: Threshold
    /// In the threshold's own unit: a fraction for ratios, a count, or milliseconds. Nil when
    /// the metric had no data (a timing nobody produced, e.g. `wait.p95` when nobody waited).
    package var measured: Double?
    /// False when the comparison fails, and also when there was nothing to measure: a limit
    /// on a timing nobody produced cannot be said to hold.
    package var passed: Bool

    package init(threshold: Threshold, measured: Double?, passed: Bool) {
        self.threshold = threshold
        self.measured = measured
        self.passed = passed
    }
}

/// Everything a threshold can measure, frozen at the end of a run.
///
/// Ratio and count metrics always have a value (0 of 0 visitors is a ratio of 0); timing
/// metrics read the histogram of every visitor across groups and outcomes and have no value
/// when that histogram is empty.
package struct RunMeasurements: Sendable {
    let visitorCount: Int
    let outcomeCounts: [VisitorOutcome: Int]
    let timings: TimingHistograms
    /// The same figures for each group, for thresholds that name one.
    private let groups: [String: RunMeasurements]

    init(statistics: OutcomeStatistics) {
        visitorCount = statistics.visitorCount
        outcomeCounts = Dictionary(
            uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0, statistics.count(of: $0)) })
        timings = statistics.timingsOfEveryone()
        var groups: [String: RunMeasurements] = [:]
        for group in statistics.reportGroupOrder {
            var timings = TimingHistograms()
            var counts: [VisitorOutcome: Int] = [:]
            for outcome in VisitorOutcome.allCases {
                guard let cell = statistics.cell(group: group, outcome: outcome) else { continue }
                counts[outcome] = cell.count
                timings.merge(cell.timings)
            }
            groups[statistics.groupNames[group]] = RunMeasurements(
                visitorCount: statistics.visitorsPerGroup[group], outcomeCounts: counts, timings: timings)
        }
        self.groups = groups
    }

    private init(visitorCount: Int, outcomeCounts: [VisitorOutcome: Int], timings: TimingHistograms) {
        self.visitorCount = visitorCount
        self.outcomeCounts = outcomeCounts
        self.timings = timings
        groups = [:]
    }

    /// A group's threshold measures that group (a group without visitors: counts of 0, no
    /// timings), every other threshold all visitors.
    package func measure(_ threshold: Threshold) -> Double? {
        guard let group = threshold.group else { return measure(threshold.metric) }
        return (groups[group] ?? RunMeasurements(visitorCount: 0, outcomeCounts: [:], timings: TimingHistograms()))
            .measure(threshold.metric)
    }

    /// The value of a metric, whether or not a threshold names it (the end-of-run screen).
    package func measure(_ metric: Threshold.Metric) -> Double? {
        switch metric {
        case .visitorCount:
            return Double(visitorCount)
        case .outcomeCount(let outcome):
            return Double(outcomeCounts[outcome] ?? 0)
        case .outcomeRatio(let outcome):
            guard visitorCount > 0 else { return 0 }
            return Double(outcomeCounts[outcome] ?? 0) / Double(visitorCount)
        case .timing(let timing, let statistic):
            let histogram = timings.histogram(for: timing)
            guard histogram.totalCount > 0 else { return nil }
            switch statistic {
            case .percentile(let percentile): return Double(histogram.valueAtPercentile(percentile))
            case .max: return Double(histogram.maxRecorded)
            case .min: return Double(histogram.min)
            case .mean: return histogram.mean
            }
        }
    }

    package func judge(_ threshold: Threshold) -> ThresholdVerdict {
        let measured = measure(threshold)
        let passed = measured.map { threshold.comparator.holds($0, threshold.limit) } ?? false
        return ThresholdVerdict(threshold: threshold, measured: measured, passed: passed)
    }

    package func judge(_ thresholds: [Threshold]) -> [ThresholdVerdict] {
        thresholds.map { judge($0) }
    }
}
