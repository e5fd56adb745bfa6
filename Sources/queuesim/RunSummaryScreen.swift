import QueueClientCore
import QueueSim

/// The one-screen summary printed when a run ends: outcomes, timings, thresholds, reports.
struct RunSummaryScreen {
    let report: RunReport
    let run: PreparedRun

    var text: String {
        var lines: [String] = []
        let scenario = run.scenario
        lines.append(
            "queuesim run \(scenario.name): \(report.visitorCount) visitors, \(report.requestCount) requests, "
                + "clock \(scenario.clock.rawValue), seed \(scenario.seed)")
        lines.append("")
        lines += Self.outcomeLines(counts: report.outcomeCounts, visitors: report.visitorCount)
        lines += Self.platformLines(report.platformOutcomes)
        lines += Self.behaviourLines(report.behaviour)
        if report.queuedOnScriptPage > 0 {
            lines.append(
                "\(report.queuedOnScriptPage) visitor(s) ended queued on a real queue page: it advances by its own "
                    + "script, which queuesim does not run (loaded once, not reloaded, as a phone does); "
                    + "a rehearsal against a real room measures the enqueue, SafetyNet passes and your own API, "
                    + "not the wait (docs/client-core.md)")
        }
        if !report.failureCauses.isEmpty {
            lines.append("")
            lines.append("why visitors failed (top causes by group):")
            for group in report.failureCauses {
                for cause in group.causes {
                    let example = cause.example == cause.cause ? "" : ": \(cause.example.prefix(100))"
                    lines.append("  \(group.group): \(cause.cause) × \(cause.count)\(example)")
                }
            }
        }
        lines.append("")
        lines.append("timing       p50       p95       max")
        var caps: [MeasurementCap] = []
        for timing in Threshold.Timing.allCases {
            let metrics = [Threshold.Statistic.percentile(50), .percentile(95), .max].map {
                Threshold.Metric.timing(timing, $0)
            }
            let values = metrics.map { report.measurements.measure($0) }
            guard values.contains(where: { $0 != nil }) else { continue }
            lines.append(
                timing.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                    + zip(metrics, values).map { metric, value in
                        // A value at its cap is a lower bound: `≥ 30m 0s`, explained below.
                        guard let value else { return "-".leftPadded(to: 10) }
                        if let cap = report.measurements.cap(of: metric, value: value) {
                            if !caps.contains(cap) { caps.append(cap) }
                            return ("≥ " + ThresholdTable.formatMilliseconds(Double(cap.milliseconds))).leftPadded(
                                to: 10)
                        }
                        return ThresholdTable.formatMilliseconds(value).leftPadded(to: 10)
                    }.joined())
        }
        for cap in caps {
            lines.append(
                "≥ \(ThresholdTable.formatMilliseconds(Double(cap.milliseconds))): \(cap.words) "
                    + "(visitors stopped waiting there; the real waits are longer)")
        }
        if let generator = report.generator {
            lines.append("")
            let cpu = generator.cpuMicrosecondsPerRequest.map { String(format: ", %.0f µs CPU per request", $0) } ?? ""
            lines.append(
                "generator: \(generator.loops) event loop\(generator.loops == 1 ? "" : "s"), "
                    + String(format: "%.1f s CPU", generator.cpuSeconds) + cpu)
            if let connections = generator.connections {
                lines.append("connections: \(connections)\(generator.connectionCounts)")
            }
            lines.append((generator.saturatedWindows.isEmpty ? "" : "WARNING: ") + generator.verdict)
        }
        lines.append("")
        if let trip = report.guardrailTrip {
            lines.append("STOPPED BY GUARDRAIL: " + GuardrailText.stopLine(trip, verdicts: report.verdicts))
            lines.append("")
        }
        if let shard = report.shard {
            lines.append(
                "thresholds: not judged on shard \(shard)'s share; queuesim merge judges them on the whole run")
        } else if report.verdicts.isEmpty {
            lines.append(Self.thresholdLine(verdicts: report.verdicts))
        } else {
            lines.append(
                String(report.thresholdTable.reversed().drop(while: \.isNewline).reversed()))
        }
        lines.append("")
        lines.append("reports: \(report.directory)/{visitors,summary,timeline}.csv, run.json")
        lines.append(
            ExitLine.screenLine(
                report.exitStatus, thresholdCount: report.verdicts.count, isShard: report.shard != nil))
        lines.append("report: \(report.directory)/report.html")
        return lines.joined(separator: "\n")
    }

    /// The outcome table of `run`, `merge` and `report`: count and share of each outcome that
    /// occurred, shares written as thresholds are (`99.5%`, `PercentText`).
    static func outcomeLines(counts: [VisitorOutcome: Int], visitors: Int) -> [String] {
        var lines = ["outcome      count   share"]
        for outcome in VisitorOutcome.allCases {
            let count = counts[outcome] ?? 0
            guard count > 0 else { continue }
            lines.append(
                outcome.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
                    + String(count).leftPadded(to: 7) + " " + PercentText.of(count, in: visitors).leftPadded(to: 7))
        }
        return lines
    }

    /// A group that mixes platforms hides which platform fared how: one line per platform, in
    /// the order ios, android (empty when no group mixes).
    /// Comebacks and the load behind the queue, when visitors came back or went on shopping.
    static func behaviourLines(_ figures: BehaviourFigures) -> [String] {
        var lines: [String] = []
        if figures.comebacks > 0 { lines.append("comebacks: \(figures.comebacks) (visitors who reopened the app)") }
        if figures.afterPassRequests > 0 {
            let second = figures.afterPassPeakSecond.map { " in second \($0)" } ?? ""
            lines.append(
                "behind the queue: \(figures.afterPassRequests) after-pass requests, peak "
                    + "\(figures.afterPassPeakPerSecond)/s\(second)")
        }
        return lines.isEmpty ? [] : [""] + lines
    }

    static func platformLines(_ outcomes: [String: [VisitorOutcome: Int]]) -> [String] {
        guard !outcomes.isEmpty else { return [] }
        var lines = ["", "by platform (a group mixes platforms):"]
        for platform in outcomes.keys.sorted(by: { ($0 == "ios" ? 0 : 1, $0) < ($1 == "ios" ? 0 : 1, $1) }) {
            let counts = outcomes[platform] ?? [:]
            let total = counts.values.reduce(0, +)
            let parts = VisitorOutcome.allCases.compactMap { outcome -> String? in
                guard let count = counts[outcome], count > 0 else { return nil }
                return "\(outcome.rawValue) \(count) (\(PercentText.of(count, in: total)))"
            }
            lines.append(
                "  " + platform.padding(toLength: 9, withPad: " ", startingAt: 0) + String(total).leftPadded(to: 7)
                    + "  " + parts.joined(separator: ", "))
        }
        return lines
    }

    /// One line on the thresholds: "no thresholds set" says plainly that nothing judged the run.
    static func thresholdLine(verdicts: [ThresholdVerdict]) -> String {
        guard !verdicts.isEmpty else {
            return "no thresholds set: the exit code does not judge this run (add `thresholds:` to the scenario)"
        }
        let failed = verdicts.filter { !$0.passed }.count
        return failed == 0
            ? "thresholds: all \(verdicts.count) held" : "thresholds: \(failed) of \(verdicts.count) FAILED"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
