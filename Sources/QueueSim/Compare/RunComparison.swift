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
        /// A group with fewer than `RunBatches.minimumGroupVisitors` visitors in a run (not a
        /// deterministic pair): too few to tell chance from change, so not judged.
        case tooFew = "too few visitors"

        package var breaksRule: Bool { self == .regression }
    }

    package struct Row: Sendable {
        /// `all` or a group's name.
        package var scope: String
        package var metric: Threshold.Metric
        /// The base run's figure, or the mean of the base runs' figures when there are several.
        package var base: Double?
        package var new: Double?
        package var rule: CompareRule?
        /// Whether the difference is within the noise band (false where runs are deterministic).
        package var withinNoise: Bool
        package var verdict: Verdict
        /// The half-width of the difference's 95 % noise band; nil where there is none (a
        /// maximum, a deterministic pair, a side with no value).
        package var band: Double? = nil
        /// Whether either figure is a lower bound (a wait at `client.maxWait` or `run.duration`).
        package var capped: Bool = false

        package var metricName: String { ThresholdTable.metricName(metric) }
        package var difference: Double? { base.flatMap { base in new.map { $0 - base } } }
    }

    /// The first base run (the only one, unless several were given).
    package var base: ComparedRun { bases[0] }
    /// Every base run: with several, the band is their figures' spread, and `base` their mean.
    package var bases: [ComparedRun]
    package var new: ComparedRun
    package var rules: [CompareRule]
    /// Both virtual with the same seed: every difference is a change of the system, never chance.
    package var deterministic: Bool
    package var rows: [Row]

    package var broken: [Row] { rows.filter { $0.verdict.breaksRule } }

    /// Percentiles shown for every timing that has values; a rule can name any other statistic.
    static let shownPercentiles: [Double] = [50, 95, 99]

    package init(base: ComparedRun, new: ComparedRun, rules: [CompareRule]) {
        self.init(bases: [base], new: new, rules: rules)
    }

    /// `bases` must not be empty.
    package init(bases: [ComparedRun], new: ComparedRun, rules: [CompareRule]) {
        self.bases = bases
        self.new = new
        self.rules = rules
        deterministic =
            bases.count == 1 && bases[0].clock == "virtual" && new.clock == "virtual" && bases[0].seed == new.seed
        var rows: [Row] = []
        for scope in Self.scopes(bases: bases, new: new) {
            // A group none of whose visitors a run drew has nothing to measure (not a share of 0).
            let sides = Sides(
                bases: bases.map { $0.measurements.scope(scope.group, measured: true) },
                new: new.measurements.scope(scope.group, measured: true))
            for metric in Self.metrics(sides.bases.first ?? nil, sides.new, rules: rules) {
                var row = Row(
                    scope: scope.name, metric: metric, base: sides.baseValue(metric),
                    new: sides.new?.measure(metric), rule: rules.last { $0.metric == metric }, withinNoise: false,
                    verdict: .missing)
                row.capped =
                    zip(bases, sides.bases).contains { Self.capped(metric, $1?.measure(metric), in: $0) }
                    || Self.capped(metric, row.new, in: new)
                if !deterministic, let difference = row.difference {
                    row.band = Self.band(metric, group: scope.group, bases: bases, new: new)
                    row.withinNoise = row.band.map { abs(difference) <= $0 } ?? false
                }
                row.verdict = Self.verdict(row)
                if !deterministic, row.verdict != .missing, let group = scope.group,
                    ([new] + bases).contains(where: {
                        ($0.measurements.group(group)?.visitorCount ?? 0) < RunBatches.minimumGroupVisitors
                    })
                {
                    row.verdict = .tooFew
                }
                rows.append(row)
            }
        }
        self.rows = rows
    }

    /// Whether `value` of `metric` is a lower bound in `run`: a wait at the run's cap. A group's
    /// figures are capped by the run's cap (its measurements do not carry one).
    static func capped(_ metric: Threshold.Metric, _ value: Double?, in run: ComparedRun) -> Bool {
        guard case .timing(.wait, _) = metric, let value, let cap = run.measurements.waitCap else { return false }
        return cap.caps(value)
    }

    /// One scope's measurements on each side (nil where a run has no such group).
    struct Sides {
        var bases: [RunMeasurements?]
        var new: RunMeasurements?

        /// The base figure: the one base run's, or the mean over the base runs that have it.
        func baseValue(_ metric: Threshold.Metric) -> Double? {
            let values = bases.compactMap { $0?.measure(metric) }
            guard !values.isEmpty, values.count == bases.count else { return nil }
            return values.reduce(0, +) / Double(values.count)
        }
    }

    /// `all`, then each group — except when both sides ran the same single group: its row
    /// would repeat every figure of `all` (and a broken rule twice).
    static func scopes(bases: [ComparedRun], new: ComparedRun) -> [(name: String, group: String?)] {
        var names = new.groupNames
        for run in bases { names += run.groupNames.filter { !names.contains($0) } }
        let oneGroup = names.count == 1 && ([new] + bases).allSatisfy { $0.groupNames == names }
        return [("all", nil)] + (oneGroup ? [] : names.map { ($0, $0) })
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

    /// The 95 % band of the difference of a figure: from the base runs' spread when there are
    /// several, else from each run's batch means (per-visitor intervals for a run too small).
    static func band(_ metric: Threshold.Metric, group: String?, bases: [ComparedRun], new: ComparedRun) -> Double? {
        if bases.count > 1 {
            let figures = bases.compactMap { $0.measurements.scope(group)?.measure(metric) }
            guard figures.count == bases.count, let spread = NoiseBand.acrossRuns(figures) else { return nil }
            return NoiseBand.differenceBand([spread])
        }
        let spreads = [bases[0], new].compactMap { run -> NoiseBand.Spread? in
            if let spread = NoiseBand.batchMeans(run.batches.figures(metric, group: group)) { return spread }
            guard let measurements = run.measurements.scope(group),
                let interval = interval(metric, of: measurements)
            else { return nil }
            return NoiseBand.spread(of: interval, visitors: measurements.visitorCount)
        }
        guard spreads.count == 2 else { return nil }
        return NoiseBand.differenceBand(spreads)
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
        // A lower bound proves nothing better: the capped figure may be any larger.
        if -worse > limit, !row.withinNoise, !row.capped { return .improved }
        return .ok
    }

    /// The per-visitor 95 % interval of a metric in one run, when the metric has one.
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

extension RunMeasurements {
    /// Every visitor's figures (`group` nil) or one group's; with `measured`, nil for a group
    /// without visitors.
    func scope(_ group: String?, measured: Bool = false) -> RunMeasurements? {
        guard let group else { return self }
        guard let figures = self.group(group), !measured || figures.visitorCount > 0 else { return nil }
        return figures
    }
}
