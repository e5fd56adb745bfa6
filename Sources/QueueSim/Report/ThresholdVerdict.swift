import Histogram
import QueueClientCore
import Synchronization

/// A threshold judged against a finished run.
package struct ThresholdVerdict: Sendable, Equatable {
    package var threshold: Threshold
    /// In the threshold's own unit: a fraction for ratios, a count, or milliseconds. Nil when
    /// the metric had no data (a timing nobody produced, e.g. `wait.p95` when nobody waited).
    package var measured: Double?
    /// False when the comparison fails, and also when there was nothing to measure: a limit
    /// on a timing nobody produced cannot be said to hold.
    package var passed: Bool
    /// Set when `measured` is censored: it sits at the cap (`client.maxWait`), so the real
    /// value is at least that much and the comparison reads a limit, not a measurement.
    package var capped: MeasurementCap? = nil
    /// Why the threshold was not judged (`interrupted`): the run was cut short, so its
    /// figures describe part of a run. Such a verdict is neither a pass nor a failure.
    package var notJudged: String? = nil
    /// A windowed threshold's windows: how many were judged and failed, the first failure and
    /// the worst window. Nil for a threshold on the whole run.
    package var windows: WindowedVerdict? = nil

    package init(threshold: Threshold, measured: Double?, passed: Bool) {
        self.threshold = threshold
        self.measured = measured
        self.passed = passed
    }

    /// `pass`, `FAIL`, `FAIL (capped)` or `not judged: interrupted`.
    package var word: String {
        if let notJudged { return "not judged: \(notJudged)" }
        if failedOnTheCap { return "FAIL (capped)" }
        return passed ? "pass" : "FAIL"
    }

    /// Failed only because the figure is a lower bound: the number read at the cap would meet
    /// the limit (`wait.p95 < 35m` on `≥ 30m 0s`), but the real figure may be any larger.
    package var failedOnTheCap: Bool {
        guard !passed, capped != nil, let measured else { return false }
        return threshold.comparator.holds(measured, threshold.limit)
    }

    /// The one judgement of a figure, for every command: a figure at its cap is a lower bound
    /// and passes only a comparison every larger value passes too (`>`, `>=`, `!=`); a figure
    /// with no value passes nothing.
    package static func passes(_ threshold: Threshold, measured: Double?, cap: MeasurementCap?) -> Bool {
        guard let measured else { return false }
        guard let cap else { return threshold.comparator.holds(measured, threshold.limit) }
        return threshold.comparator.holds(atLeast: Double(cap.milliseconds), threshold.limit)
    }
}

/// A limit that stops a timing from growing: a visitor still queued when `client.maxWait`
/// runs out records a wait of about maxWait, whatever its wait would have been, so a
/// percentile that reaches the cap says "at least this", not "this".
package struct MeasurementCap: Sendable, Equatable {
    package var milliseconds: UInt64
    /// The scenario key that sets it: `client.maxWait` or `run.duration`.
    package var source: String

    package init(milliseconds: UInt64, source: String) {
        self.milliseconds = milliseconds
        self.source = source
    }

    /// The cap on waits: `client.maxWait`, or `run.duration` when that is shorter (nobody
    /// waits longer than the run lasts).
    package static func wait(maxWait: Duration, runDuration: Duration?) -> MeasurementCap {
        let maxWaitMs = UInt64(max(0, maxWait.wholeMilliseconds))
        if let runDuration, runDuration < maxWait {
            return MeasurementCap(milliseconds: UInt64(max(0, runDuration.wholeMilliseconds)), source: "run.duration")
        }
        return MeasurementCap(milliseconds: maxWaitMs, source: "client.maxWait")
    }

    /// Whether `value` is censored: at or above the lowest value of the cap's own bucket in
    /// the report's histograms (3 significant digits, so within about 0.1 % below the cap).
    /// A percentile is read from its bucket, so a value in the cap's bucket cannot be told
    /// from the cap itself; values above it are visitors stopped a poll after the cap.
    package func caps(_ value: Double) -> Bool {
        guard milliseconds > 0 else { return false }
        let lowest = Self.layout.lowestEquivalentForValue(milliseconds)
        return value >= Double(lowest)
    }

    /// Bucket arithmetic only: making a 16 KiB histogram per question was 6 % of a run of
    /// 2,000 groups (five questions per group's wait figures in run.json).
    private static let layout = TimingHistograms.makeHistogram()

    /// `capped by client.maxWait`.
    package var words: String { "capped by \(source)" }

    /// `≥ 30m 0s (capped by client.maxWait)`: the cap, not the measured bucket value, since
    /// the real figure is at least the cap.
    package func describe(_ format: (Double) -> String) -> String {
        "≥ \(format(Double(milliseconds))) (\(words))"
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
    /// The same figures for each group, for thresholds that name one: made at the first
    /// question about a group (a run's thresholds seldom name one, and making them for 2,000
    /// groups was most of judging such a run, issue 51).
    private let groups: GroupMeasurements?
    /// The cap on waits (`client.maxWait`), for telling censored percentiles apart.
    package var waitCap: MeasurementCap? = nil

    init(statistics: OutcomeStatistics) {
        visitorCount = statistics.visitorCount
        outcomeCounts = Dictionary(
            uniqueKeysWithValues: VisitorOutcome.allCases.map { ($0, statistics.count(of: $0)) })
        timings = statistics.timingsOfEveryone()
        groups = GroupMeasurements(statistics)
    }

    /// One group's figures; nil for a name the run has no group of.
    package func group(_ name: String) -> RunMeasurements? { groups?.group(name) }

    private init(visitorCount: Int, outcomeCounts: [VisitorOutcome: Int], timings: TimingHistograms) {
        self.visitorCount = visitorCount
        self.outcomeCounts = outcomeCounts
        self.timings = timings
        groups = nil
    }

    /// Every group's figures, made once, when first asked for.
    private final class GroupMeasurements: Sendable {
        private let statistics: OutcomeStatistics
        private let made = Mutex<[String: RunMeasurements]?>(nil)

        init(_ statistics: OutcomeStatistics) {
            self.statistics = statistics
        }

        func group(_ name: String) -> RunMeasurements? {
            made.withLock { made in
                if made == nil { made = make() }
                return made?[name]
            }
        }

        private func make() -> [String: RunMeasurements] {
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
            return groups
        }
    }

    /// A group's threshold measures that group (a group without visitors: counts of 0, no
    /// timings), every other threshold all visitors.
    package func measure(_ threshold: Threshold) -> Double? {
        guard let group = threshold.group else { return measure(threshold.metric) }
        return (self.group(group) ?? RunMeasurements(visitorCount: 0, outcomeCounts: [:], timings: TimingHistograms()))
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

    /// The cap `value` of `metric` sits at, if any: wait percentiles, max and mean (min too:
    /// when even the shortest wait is the cap, everyone gave up).
    package func cap(of metric: Threshold.Metric, value: Double?) -> MeasurementCap? {
        guard case .timing(.wait, _) = metric, let value, let waitCap, waitCap.caps(value) else { return nil }
        return waitCap
    }

    package func judge(_ threshold: Threshold) -> ThresholdVerdict {
        let measured = measure(threshold)
        let capped = cap(of: threshold.metric, value: measured)
        var verdict = ThresholdVerdict(
            threshold: threshold, measured: measured,
            passed: ThresholdVerdict.passes(threshold, measured: measured, cap: capped))
        verdict.capped = capped
        return verdict
    }

    /// An interrupted run's thresholds are measured but not judged: the figures of part of a
    /// run say little about the whole, and the exit code is the signal's (130, 143) anyway.
    ///
    /// Windowed thresholds take their verdicts from `guardrails` (judged while the run went):
    /// failed when any window failed, `measured` the first failed window's value or else the
    /// worst window's; a threshold none of whose windows had enough visitors passes with no
    /// value. When a guardrail stopped the run, the whole-run thresholds are not judged.
    package func judge(
        _ thresholds: [Threshold], interrupted: Bool = false, guardrails: GuardrailResults? = nil
    ) -> [ThresholdVerdict] {
        thresholds.enumerated().map { index, threshold in
            var verdict: ThresholdVerdict
            if threshold.window != nil {
                verdict = Self.windowed(threshold, guardrails?.verdicts[index])
                // Cut short before any of its windows was judged: neither a pass nor a failure.
                if guardrails?.trip != nil, verdict.windows?.judgedWindows == 0 {
                    verdict.notJudged = "stopped by a guardrail"
                }
                // The window's figure, at the cap, is a lower bound (WindowTracker judged it so).
                verdict.capped = cap(of: threshold.metric, value: verdict.measured)
            } else {
                verdict = judge(threshold)
                if guardrails?.trip != nil { verdict.notJudged = "stopped by a guardrail" }
            }
            if interrupted { verdict.notJudged = "interrupted" }
            return verdict
        }
    }

    static func windowed(_ threshold: Threshold, _ windows: WindowedVerdict?) -> ThresholdVerdict {
        guard let windows else {
            var verdict = ThresholdVerdict(threshold: threshold, measured: nil, passed: false)
            verdict.notJudged = "windows are judged only while the run goes"
            return verdict
        }
        var verdict = ThresholdVerdict(
            threshold: threshold, measured: (windows.firstFailure ?? windows.worst)?.measured, passed: windows.passed)
        verdict.windows = windows
        return verdict
    }
}
