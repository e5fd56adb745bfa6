import QueueClientCore

/// One figure a sweep reports for every run: a goal's or threshold's metric, an outcome's
/// share, or a figure of the queue. Named as a sweep.csv column.
package struct SweepMetric: Sendable, Equatable {
    package enum Source: Sendable, Equatable {
        /// What a threshold measures (for one group, or all visitors).
        case measured(Threshold.Metric, group: String?)
        /// The most visitors in the queue at once (`in_queue`'s peak).
        case queueLengthPeak
        /// From the first entry into the queue to the last exit, in milliseconds.
        case queueDuration
        /// The most requests per second the protected site takes behind the queue.
        case shopPeak
    }

    package enum Unit: Sendable, Equatable {
        /// A fraction 0…1.
        case share
        case count
        case milliseconds
        case perSecond
    }

    package var column: String
    package var source: Source
    package var unit: Unit

    /// The column of a threshold's metric: `wait_p95_ms`, `passed_share`, `error_count`,
    /// `visitors`, a group's prefixed by its name (`partner.wait_p95_ms`).
    package init(threshold: Threshold) {
        self.init(metric: threshold.metric, group: threshold.group)
    }

    package init(metric: Threshold.Metric, group: String? = nil) {
        let prefix = group.map { "\($0)." } ?? ""
        source = .measured(metric, group: group)
        switch metric {
        case .outcomeRatio(let outcome):
            column = prefix + "\(outcome.rawValue)_share"
            unit = .share
        case .outcomeCount(let outcome):
            column = prefix + "\(outcome.rawValue)_count"
            unit = .count
        case .visitorCount:
            column = prefix + "visitors"
            unit = .count
        case .timing(let timing, let statistic):
            let name: String =
                switch statistic {
                case .percentile(let percentile):
                    "p" + SweepUnit.decimalText(percentile).replacingOccurrences(of: ".", with: "_")
                case .max: "max"
                case .min: "min"
                case .mean: "mean"
                }
            column = prefix + "\(timing.rawValue)_\(name)_ms"
            unit = .milliseconds
        }
    }

    init(column: String, source: Source, unit: Unit) {
        self.column = column
        self.source = source
        self.unit = unit
    }

    static let queueLengthPeak = SweepMetric(column: "queue_length_peak", source: .queueLengthPeak, unit: .count)
    static let queueDuration = SweepMetric(column: "queue_duration_ms", source: .queueDuration, unit: .milliseconds)
    static let shopPeak = SweepMetric(column: "shop_peak_rps", source: .shopPeak, unit: .perSecond)
    package static let waitP95 = SweepMetric(metric: .timing(.wait, .percentile(95)))
    package static let abandonedShare = SweepMetric(metric: .outcomeRatio(.abandoned))

    /// Every column a sweep writes, in order: the goals' metrics, the scenario's thresholds',
    /// the wait p95 (the fluid model's figure), each outcome's share, the queue and the shop.
    package static func columns(goals: [Threshold], thresholds: [Threshold]) -> [SweepMetric] {
        var metrics: [SweepMetric] = []
        func add(_ metric: SweepMetric) {
            if !metrics.contains(where: { $0.column == metric.column }) { metrics.append(metric) }
        }
        for threshold in goals + thresholds { add(SweepMetric(threshold: threshold)) }
        add(waitP95)
        for outcome in VisitorOutcome.allCases { add(SweepMetric(metric: .outcomeRatio(outcome))) }
        add(queueLengthPeak)
        add(queueDuration)
        add(shopPeak)
        return metrics
    }

    /// The figure in `report`; nil when the run had nothing to measure (a wait percentile when
    /// nobody waited) or the figure is not available.
    package func value(in report: RunReport) -> Double? {
        switch source {
        case .measured(let metric, let group):
            let threshold = Threshold(metric: metric, comparator: .lessThan, limit: 0, source: "", group: group)
            return report.measurements.measure(threshold)
        case .queueLengthPeak: return Double(report.queue.lengthPeak)
        case .queueDuration: return report.queue.durationMs.map(Double.init)
        case .shopPeak: return SweepShopPeak.requestsPerSecond(in: report)
        }
    }
}

/// Where a sweep reads the shop's peak: the most requests per second the protected API (the
/// shop) takes from visitors who passed the queue — the after-pass calls of groups with
/// `afterPass:` (`RunReport.behaviour`). Nil (an empty cell) when no group makes such calls:
/// nothing is estimated in its place.
package enum SweepShopPeak {
    package static func requestsPerSecond(in report: RunReport) -> Double? {
        guard report.behaviour.afterPassCounted, report.behaviour.afterPassPeakSecond != nil else { return nil }
        return Double(report.behaviour.afterPassPeakPerSecond)
    }
}
