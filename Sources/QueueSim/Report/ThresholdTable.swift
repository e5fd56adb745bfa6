import QueueClientCore

/// The end-of-run threshold table: `metric | limit | measured | verdict`, aligned for a
/// terminal, with ratios as percentages and timings with units.
package enum ThresholdTable {
    package static func render(_ verdicts: [ThresholdVerdict]) -> String {
        guard !verdicts.isEmpty else { return "" }
        let header = ["metric", "limit", "measured", "verdict"]
        let rows = verdicts.map { verdict -> [String] in
            let threshold = verdict.threshold
            return [
                displayName(threshold),
                "\(threshold.comparator.rawValue) \(format(threshold.limit, as: threshold.metric))",
                measuredText(verdict),
                verdict.word,
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                column == cells.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            return padded.joined(separator: " | ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// The measured value as people should read it: `17m 2s`, `no data`, or for a value at its
    /// cap `≥ 30m 0s (capped by client.maxWait)`.
    package static func measuredText(_ verdict: ThresholdVerdict) -> String {
        let metric = verdict.threshold.metric
        if let windows = verdict.windows {
            let text = windowedText(windows, metric: metric, window: verdict.threshold.window)
            return verdict.capped.map { "≥ \(text) (\($0.words))" } ?? text
        }
        guard let measured = verdict.measured else { return "no data" }
        if let cap = verdict.capped { return cap.describe { format($0, as: metric) } }
        return format(measured, as: metric)
    }

    /// A windowed threshold's figure: `6.2% in 60s..90s (3 windows failed)`, `worst 1.5% in
    /// 30s..60s`, or `no window had 20 visitors`.
    static func windowedText(_ windows: WindowedVerdict, metric: Threshold.Metric, window: ThresholdWindow?) -> String {
        if let failure = windows.firstFailure {
            let more = windows.failedWindows > 1 ? " (\(windows.failedWindows) windows failed)" : ""
            return "\(format(failure.measured, as: metric)) in \(failure.text)\(more)"
        }
        if let worst = windows.worst { return "worst \(format(worst.measured, as: metric)) in \(worst.text)" }
        return "no window had \(window?.minVisitors ?? ThresholdWindow.defaultMinVisitors) visitors"
    }

    /// One verdict on one line: `wait.p95 < 10m: ≥ 30m 0s (capped by client.maxWait) FAIL`.
    package static func verdictLine(_ verdict: ThresholdVerdict) -> String {
        "\(verdict.threshold.source): \(measuredText(verdict)) \(verdict.word)"
    }

    /// The metric with its group, if it has one: `partner: wait.p95`.
    package static func displayName(_ threshold: Threshold) -> String {
        (threshold.group.map { "\($0): " } ?? "") + metricName(threshold.metric)
            + (threshold.window.map { " \($0.text)" + ($0.abortOnFail ? " (abortOnFail)" : "") } ?? "")
    }

    /// The metric as a scenario writes it: `passed`, `passed.count`, `visitors`, `wait.p95`.
    package static func metricName(_ metric: Threshold.Metric) -> String {
        switch metric {
        case .outcomeRatio(let outcome): outcome.rawValue
        case .outcomeCount(let outcome): "\(outcome.rawValue).count"
        case .visitorCount: "visitors"
        case .timing(let timing, let statistic):
            switch statistic {
            case .percentile(let percentile): "\(timing.rawValue).p\(trimmed(percentile, decimals: 3))"
            case .max: "\(timing.rawValue).max"
            case .min: "\(timing.rawValue).min"
            case .mean: "\(timing.rawValue).mean"
            }
        }
    }

    /// A value in the metric's unit: `99.5%`, `1200`, `850ms`.
    package static func format(_ value: Double, as metric: Threshold.Metric) -> String {
        switch metric {
        case .outcomeRatio: "\(trimmed(value * 100, decimals: 2))%"
        case .outcomeCount, .visitorCount: trimmed(value, decimals: 0)
        case .timing: formatMilliseconds(value)
        }
    }

    /// `850ms`, `1.23s`, `5m 0s`, `2h 5m`: precise for short timings, readable for long ones.
    package static func formatMilliseconds(_ milliseconds: Double) -> String {
        let ms = milliseconds.rounded()
        if ms < 1000 { return "\(Int64(ms))ms" }
        if ms < 60_000 { return "\(trimmed(ms / 1000, decimals: 2))s" }
        let totalSeconds = Int64((ms / 1000).rounded())
        if totalSeconds < 3600 { return "\(totalSeconds / 60)m \(totalSeconds % 60)s" }
        let totalMinutes = Int64((ms / 60_000).rounded())
        return "\(totalMinutes / 60)h \(totalMinutes % 60)m"
    }

    /// At most `decimals` digits after the point, trailing zeros dropped (`DecimalText`).
    static func trimmed(_ value: Double, decimals: Int) -> String {
        DecimalText.trimmed(value, decimals: decimals)
    }
}
