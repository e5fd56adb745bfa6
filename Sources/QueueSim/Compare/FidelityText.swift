import Foundation

/// What `queuesim compare --real` writes: the terminal's table, Markdown for a job summary (with
/// an SVG overlay chart in a file beside it), and JSON of the scores, all from one report.
package struct FidelityText: Sendable {
    package var report: FidelityReport
    package var run: RunMinutes
    package var real: RealStats
    /// The run's folder and the stats file as the user named them.
    package var runName: String
    package var realName: String
    /// Why the run's second 0 is where it is, when not the file's first row or `--real-from`
    /// (`the run's replay started there`).
    package var alignmentSource: String?

    package init(report: FidelityReport, run: RunMinutes, real: RealStats, runName: String, realName: String) {
        (self.report, self.run, self.real, self.runName, self.realName) = (report, run, real, runName, realName)
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "—" }
        return String(format: "%.1f%%", value)
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? FidelityRule.number(value) : String(format: "%.2f", value)
    }

    /// `+12 at 2026-05-01T09:14:00Z (run 40, real 28)`; a wait series' figures carry their
    /// unit, minutes as Queue-it counts them: `+3.01 min at … (run 24.01 min, real 21 min)`.
    static func gap(_ gap: FidelityGap?, series name: String) -> String {
        guard let gap else { return "—" }
        let unit = name.hasSuffix("waittime") ? " min" : ""
        let sign = gap.gap > 0 ? "+" : gap.gap < 0 ? "−" : "±"
        return
            "\(sign)\(number(abs(gap.gap)))\(unit) at \(gap.time) (run \(number(gap.run))\(unit), real \(number(gap.real))\(unit))"
    }

    /// The line under the table: the first row's time as the run's second 0.
    var alignment: String {
        let first = real.timeText(minute: report.offsetMinutes)
        let why = alignmentSource.map { ": \($0)" } ?? ""
        return "run second 0 = \(first) (the file's minute \(report.offsetMinutes + 1) of \(real.count)\(why))"
    }

    /// The Total-Outflow identity in words, naming the first broken minutes with their lines.
    var identityLine: String {
        guard let identity = report.identity else {
            return "total outflow: not checked (the file has no totaloutflow column)"
        }
        if let unchecked = identity.unchecked { return "total outflow: not checked (\(unchecked))" }
        guard !identity.broken.isEmpty else {
            return
                "total outflow: safetynetoutflow + queueoutflow = totaloutflow in all \(identity.checkedMinutes) minutes of the file"
        }
        let named = identity.broken.prefix(3).map { broken in
            "\(realName):\(broken.line.map(String.init) ?? "?") (\(broken.time): \(Self.number(broken.safetyNet)) + \(Self.number(broken.queue)) ≠ \(Self.number(broken.total)))"
        }
        let more = identity.broken.count > 3 ? ", and \(identity.broken.count - 3) more" : ""
        return "total outflow: the file breaks safetynetoutflow + queueoutflow = totaloutflow in "
            + "\(identity.broken.count) of \(identity.checkedMinutes) minutes: " + named.joined(separator: ", ") + more
    }

    package var verdictLine: String {
        let broken = report.broken
        guard !broken.isEmpty else {
            return "every rule holds (\(report.verdicts.count) rules), score \(Self.percent(report.score))"
        }
        return "\(broken.count) of \(report.verdicts.count) rules broken: "
            + broken.map { "\($0.rule) (\(value($0)))" }.joined(separator: ", ")
    }

    func value(_ verdict: FidelityVerdict) -> String {
        guard let value = verdict.value else { return "not in the file" }
        return verdict.rule.measure == .gap ? Self.number(value) : Self.percent(value)
    }

    func verdictWord(_ verdict: FidelityVerdict) -> String {
        verdict.value == nil ? "n/a" : verdict.holds ? "ok" : "broken"
    }

    /// The terminal's text.
    package var terminal: String {
        var lines = ["fidelity of \(runName) against \(realName): \(alignment)", ""]
        let rows = report.series.map { series in
            [
                series.name, Self.percent(series.mape), "\(series.scoredMinutes)/\(series.comparedMinutes)",
                Self.gap(series.largestGap, series: series.name),
            ]
        }
        lines += Self.aligned([["series", "mape", "minutes", "largest gap"]] + rows)
        lines += ["", "score \(Self.percent(report.score)) (the mean of the series' errors)", identityLine, ""]
        lines += Self.aligned(
            [["rule", "value", "verdict"]] + report.verdicts.map { ["\($0.rule)", value($0), verdictWord($0)] })
        return lines.joined(separator: "\n")
    }

    static func aligned(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
    }

    /// Markdown: the table, the identity, the rules, and a link to the chart `chartName`.
    package func markdown(chartName: String) -> String {
        var lines = [
            "## Fidelity of `\(runName)` against `\(realName)`", "", alignment, "",
            "| series | MAPE | minutes scored | largest gap |", "|---|---|---|---|",
        ]
        lines += report.series.map {
            "| \($0.name) | \(Self.percent($0.mape)) | \($0.scoredMinutes)/\($0.comparedMinutes) | \(Self.gap($0.largestGap, series: $0.name)) |"
        }
        lines += ["", "**score \(Self.percent(report.score))** (the mean of the series' errors)", "", identityLine, ""]
        lines += ["| rule | value | verdict |", "|---|---|---|"]
        lines += report.verdicts.map { "| `\($0.rule)` | \(value($0)) | \(verdictWord($0)) |" }
        lines += [
            "",
            "Overlay chart (run solid, real dashed): [\(chartName)](\(chartName)) — an SVG file beside this one; "
                + "a job summary does not show SVG inline, so upload it with the job's artifacts.", "",
        ]
        return lines.joined(separator: "\n")
    }
}
