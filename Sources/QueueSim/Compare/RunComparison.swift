import Histogram
import QueueClientCore

/// `queuesim compare BASE NEW`: every outcome's share and every timing percentile of two runs,
/// overall and per group, their difference and a verdict; the rules decide which differences
/// break the comparison (docs/compare.md).
package struct RunComparison: Sendable {
    package enum Verdict: String, Sendable, Equatable {
        /// Judged by a rule: moved the bad way by more than it allows, beyond the noise band.
        case regression
        /// Judged by a rule: moved the bad way by more than it allows, but within the noise band.
        case noise
        /// Judged by a rule: moved the good way by more than it allows, beyond the noise band.
        case improved
        /// Judged by a rule: inside what it allows.
        case ok
        /// Not judged (no rule, or a rule set `off`): no difference at all.
        case same
        /// Not judged: a difference within the noise band.
        case withinNoise = "within noise"
        /// Not judged: a difference beyond the noise band.
        case changed
        /// No value on one side (nobody waited, say): nothing to compare.
        case missing = "n/a"

        package var breaksRule: Bool { self == .regression }
    }

    package struct Row: Sendable {
        /// `all` or a group's name.
        package var scope: String
        package var metric: Threshold.Metric
        package var base: Double?
        package var new: Double?
        package var rule: CompareRule?
        /// Whether the two values' noise intervals overlap (false where runs are deterministic).
        package var withinNoise: Bool
        package var verdict: Verdict

        package var metricName: String { ThresholdTable.metricName(metric) }
        package var difference: Double? { base.flatMap { base in new.map { $0 - base } } }
    }

    package var base: ComparedRun
    package var new: ComparedRun
    package var rules: [CompareRule]
    /// Both virtual with the same seed: every difference is a change of the system, never chance.
    package var deterministic: Bool
    package var rows: [Row]

    package var broken: [Row] { rows.filter { $0.verdict.breaksRule } }

    /// Percentiles shown for every timing that has values; a rule can name any other statistic.
    static let shownPercentiles: [Double] = [50, 95, 99]

    package init(base: ComparedRun, new: ComparedRun, rules: [CompareRule]) {
        self.base = base
        self.new = new
        self.rules = rules
        deterministic = base.clock == "virtual" && new.clock == "virtual" && base.seed == new.seed
        var scopes: [(name: String, base: RunMeasurements?, new: RunMeasurements?)] = [
            ("all", base.measurements, new.measurements)
        ]
        for name in new.groupNames + base.groupNames.filter({ !new.groupNames.contains($0) }) {
            scopes.append((name, base.measurements.group(name), new.measurements.group(name)))
        }
        var rows: [Row] = []
        for scope in scopes {
            for metric in Self.metrics(scope.base, scope.new, rules: rules) {
                rows.append(
                    Self.row(
                        scope: scope.name, metric: metric, base: scope.base, new: scope.new,
                        rule: rules.last { $0.metric == metric }, deterministic: deterministic))
            }
        }
        self.rows = rows
    }

    /// Outcomes either run has, every timing percentile either run measured, then whatever the
    /// rules name beyond those.
    static func metrics(_ base: RunMeasurements?, _ new: RunMeasurements?, rules: [CompareRule]) -> [Threshold.Metric] {
        var metrics: [Threshold.Metric] = []
        for outcome in VisitorOutcome.allCases
        where (base?.outcomeCounts[outcome] ?? 0) > 0 || (new?.outcomeCounts[outcome] ?? 0) > 0 {
            metrics.append(.outcomeRatio(outcome))
        }
        for timing in Threshold.Timing.allCases
        where (base?.timings.histogram(for: timing).totalCount ?? 0) > 0
            || (new?.timings.histogram(for: timing).totalCount ?? 0) > 0
        {
            metrics += shownPercentiles.map { .timing(timing, .percentile($0)) }
        }
        for rule in rules where !metrics.contains(rule.metric) {
            metrics.append(rule.metric)
        }
        return metrics
    }

    static func row(
        scope: String, metric: Threshold.Metric, base: RunMeasurements?, new: RunMeasurements?, rule: CompareRule?,
        deterministic: Bool
    ) -> Row {
        let baseValue = base?.measure(metric)
        let newValue = new?.measure(metric)
        let withinNoise: Bool
        if deterministic {
            withinNoise = false
        } else if let before = base.flatMap({ interval(metric, of: $0) }),
            let after = new.flatMap({ interval(metric, of: $0) })
        {
            withinNoise = before.overlaps(after)
        } else {
            withinNoise = false
        }
        var row = Row(
            scope: scope, metric: metric, base: baseValue, new: newValue, rule: rule, withinNoise: withinNoise,
            verdict: .missing)
        row.verdict = verdict(row)
        return row
    }

    static func verdict(_ row: Row) -> Verdict {
        guard let base = row.base, let new = row.new else {
            // Nobody to measure on one side; a share is always measured (0 of 0 is 0).
            return .missing
        }
        let difference = new - base
        guard let rule = row.rule, let limit = rule.limit(base: base) else {
            if difference == 0 { return .same }
            return row.withinNoise ? .withinNoise : .changed
        }
        let worse = difference * rule.worseDirection
        if worse > limit { return row.withinNoise ? .noise : .regression }
        if -worse > limit, !row.withinNoise { return .improved }
        return .ok
    }

    /// The 95 % interval of a metric in one run, when the metric has one.
    static func interval(_ metric: Threshold.Metric, of run: RunMeasurements) -> NoiseInterval? {
        switch metric {
        case .outcomeRatio(let outcome):
            return NoiseBand.share(run.outcomeCounts[outcome] ?? 0, of: run.visitorCount)
        case .outcomeCount(let outcome):
            return NoiseBand.share(run.outcomeCounts[outcome] ?? 0, of: run.visitorCount).map {
                NoiseInterval(lower: $0.lower * Double(run.visitorCount), upper: $0.upper * Double(run.visitorCount))
            }
        case .visitorCount:
            return nil
        case .timing(let timing, let statistic):
            let histogram = run.timings.histogram(for: timing)
            switch statistic {
            case .percentile(let percentile): return NoiseBand.percentile(percentile, of: histogram)
            case .mean: return NoiseBand.mean(of: histogram)
            case .max, .min: return nil
            }
        }
    }

    /// The rules in force: the defaults, then the run's recorded `compare:` block, then
    /// `--rule`; a later rule for the same metric replaces an earlier one.
    package static func rules(recorded: [CompareRule], commandLine: [CompareRule]) -> [CompareRule] {
        var rules: [CompareRule] = []
        for rule in CompareRule.defaults + recorded + commandLine {
            rules.removeAll { $0.metric == rule.metric }
            rules.append(rule)
        }
        return rules
    }
}
