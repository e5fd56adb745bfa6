import Foundation
import QueueClientCore

/// What `queuesim compare` writes: a table for the terminal, Markdown for a CI job summary and
/// JUnit XML, all from the same rows and in the same words.
package enum ComparisonText {
    /// Writes `text` to `path` whole or not at all (a temporary file renamed over it).
    package static func write(_ text: String, to path: String) throws {
        try AtomicFileWriter.write(text, to: path)
    }

    static let header = ["scope", "metric", "base", "new", "change", "noise", "rule", "verdict"]

    static func cells(_ row: RunComparison.Row, _ comparison: RunComparison) -> [String] {
        [
            row.scope, row.metricName,
            value(row.base, row.metric, capped: row.base.map { isCapped(row, $0, comparison.bases) } ?? false),
            value(row.new, row.metric, capped: row.new.map { isCapped(row, $0, [comparison.new]) } ?? false),
            change(row), band(row),
            row.rule.map { rule in
                rule.allowance == .off ? "off" : String(rule.source.split(separator: ":").last!.trimmingSpaces)
            } ?? "",
            row.verdict.rawValue,
        ]
    }

    /// `10m 7s`; a lower bound `≥ 30m 0s`.
    static func value(_ value: Double?, _ metric: Threshold.Metric, capped: Bool = false) -> String {
        guard let value else { return "—" }
        return (capped ? "≥ " : "") + ThresholdTable.format(value, as: metric)
    }

    private static func isCapped(_ row: RunComparison.Row, _ value: Double, _ runs: [ComparedRun]) -> Bool {
        row.capped && runs.contains { RunComparison.capped(row.metric, value, in: $0) }
    }

    /// `±44s`, `±0.31pp`: the half-width of the difference's 95 % noise band; empty without one.
    static func band(_ row: RunComparison.Row) -> String {
        guard let band = row.band else { return "" }
        switch row.metric {
        case .outcomeRatio: return "±\(ThresholdTable.trimmed(band * 100, decimals: 2))pp"
        case .timing: return "±\(ThresholdTable.formatMilliseconds(band))"
        case .outcomeCount, .visitorCount: return "±\(ThresholdTable.trimmed(band, decimals: 0))"
        }
    }

    /// `+2.1pp` for a share, `+3.8s (+11.8%)` for a timing, `+12 (+3%)` for a count.
    static func change(_ row: RunComparison.Row) -> String {
        guard let base = row.base, let difference = row.difference else { return "—" }
        let sign = difference > 0 ? "+" : difference < 0 ? "-" : "±"
        let relative =
            base != 0 ? " (\(sign)\(ThresholdTable.trimmed(abs(difference) / abs(base) * 100, decimals: 1))%)" : ""
        switch row.metric {
        case .outcomeRatio:
            return "\(sign)\(ThresholdTable.trimmed(abs(difference) * 100, decimals: 2))pp"
        case .timing:
            return difference == 0 ? "±0ms" : "\(sign)\(ThresholdTable.formatMilliseconds(abs(difference)))\(relative)"
        case .outcomeCount, .visitorCount:
            return difference == 0 ? "±0" : "\(sign)\(ThresholdTable.trimmed(abs(difference), decimals: 0))\(relative)"
        }
    }

    static func runLine(_ label: String, _ run: ComparedRun) -> String {
        var words =
            "\(label) \(run.folder) (run \(run.runId), seed \(run.seed), \(run.clock) clock, exit \(run.exitCode)"
        if run.interrupted { words += ", interrupted" }
        if run.incomplete != nil { words += ", incomplete" }
        return words + ")"
    }

    static func noiseLine(_ comparison: RunComparison) -> String {
        if comparison.deterministic {
            return
                "noise: none — both runs are virtual with seed \(comparison.new.seed), so every difference is a change in what ran"
        }
        if comparison.bases.count > 1 {
            return
                "noise: the spread of each figure across the \(comparison.bases.count) base runs (95 %); a difference within it is noise, not regression"
        }
        return
            "noise: each run's visitors in \(RunBatches.defaultCount) batches in arrival order, the band from the batch figures' spread (95 %); a difference within it is noise, not regression"
    }

    /// `what differs: seed 7 → 8; …` — every difference of configuration, or that there is none.
    static func differenceLines(_ comparison: RunComparison) -> [String] {
        let lines = ConfigurationDifferences.lines(bases: comparison.bases, new: comparison.new)
        guard !lines.isEmpty else { return ["what differs: nothing in the configuration (same seed, file, --set)"] }
        return ["what differs:"] + lines.map { "  " + $0 }
    }

    /// The footnote when a figure in the table is a lower bound.
    static func cappedLine(_ comparison: RunComparison) -> String? {
        guard comparison.rows.contains(where: \.capped) else { return nil }
        let cap = (comparison.bases + [comparison.new]).compactMap(\.measurements.waitCap).first
        let words = cap.map { "\($0.source) (\(ThresholdTable.formatMilliseconds(Double($0.milliseconds))))" }
        return
            "≥: a wait at its cap, \(words ?? "client.maxWait"), is a lower bound: the real figure may be any larger, so it is never judged an improvement"
    }

    /// The closing sentence: which rules broke, or that none did.
    package static func verdictLine(_ comparison: RunComparison) -> String {
        let broken = comparison.broken
        let judged = comparison.rows.filter { $0.rule.map { $0.allowance != .off } ?? false }.count
        guard !broken.isEmpty else {
            return
                "no rule broken (\(judged) figures judged by \(comparison.rules.filter { $0.allowance != .off }.count) rules)"
        }
        let causes = broken.map { row in
            "\(row.scope) \(row.metricName) \(change(row)) (rule \(row.rule!.source))"
        }
        return "\(broken.count) \(broken.count == 1 ? "rule" : "rules") broken: " + causes.joined(separator: "; ")
    }

    package static func terminal(_ comparison: RunComparison) -> String {
        var lines = ["queuesim compare: \(comparison.new.scenario)"]
        lines += comparison.bases.map { runLine("base:", $0) }
        lines += [runLine("new: ", comparison.new)] + differenceLines(comparison) + [noiseLine(comparison), ""]
        let table = [header] + comparison.rows.map { cells($0, comparison) }
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        for row in table {
            let padded = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            lines.append(padded.joined(separator: "  "))
        }
        lines.append("")
        if let capped = cappedLine(comparison) { lines.append(capped) }
        lines.append(verdictLine(comparison))
        return lines.joined(separator: "\n")
    }

    package static func markdown(_ comparison: RunComparison) -> String {
        func escape(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        let status = comparison.broken.isEmpty ? "PASS" : "FAIL"
        func runRow(_ label: String, _ run: ComparedRun) -> String {
            "| \(label) | \(escape(run.runId)) | \(run.seed) | \(run.clock) | \(run.exitCode) |"
        }
        var lines = [
            "### queuesim compare: \(status) — \(escape(comparison.new.scenario))", "",
            "| | run | seed | clock | exit |", "|---|---|---|---|---|",
        ]
        lines += comparison.bases.map { runRow("base", $0) } + [runRow("new", comparison.new), ""]
        lines += differenceLines(comparison).map { escape($0.hasPrefix("  ") ? "-" + $0.dropFirst() : $0) }
        lines += [
            "", escape(noiseLine(comparison)), "",
            "| " + header.joined(separator: " | ") + " |",
            "|" + String(repeating: "---|", count: header.count),
        ]
        for row in comparison.rows {
            var cells = cells(row, comparison).map(escape)
            if row.verdict == .regression { cells[cells.count - 1] = "**regression**" }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += [""] + (cappedLine(comparison).map { [escape($0)] } ?? []) + [escape(verdictLine(comparison)), ""]
        return lines.joined(separator: "\n")
    }

    /// One test case per judged figure (a rule not `off`, in a scope): failing on a regression,
    /// skipped where one side has no value.
    package static func junit(_ comparison: RunComparison) -> String {
        let suite = "queuesim.compare.\(comparison.new.scenario)"
        let judged = comparison.rows.filter { $0.rule.map { $0.allowance != .off } ?? false }
        let failures = judged.filter { $0.verdict.breaksRule }.count
        let skipped = judged.filter { $0.verdict == .missing || $0.verdict == .tooFew }.count
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="queuesim compare" tests="\(judged.count)" failures="\(failures)" errors="0" skipped="\(skipped)">
              <testsuite name="\(HTML.escape(suite))" tests="\(judged.count)" failures="\(failures)" errors="0" skipped="\(skipped)">
                <properties>
                  <property name="base_run_id" value="\(HTML.escape(comparison.base.runId))"/>
                  <property name="new_run_id" value="\(HTML.escape(comparison.new.runId))"/>
                  <property name="deterministic" value="\(comparison.deterministic)"/>
                </properties>

            """
        for row in judged {
            let cells = cells(row, comparison)
            let summary =
                "\(row.metricName): base \(cells[2]), new \(cells[3]), change \(change(row)), noise \(cells[5].isEmpty ? "none" : cells[5]), verdict \(row.verdict.rawValue)"
            xml +=
                "    <testcase classname=\"\(HTML.escape("\(suite).\(row.scope)"))\" name=\"\(HTML.escape(row.rule!.source))\" time=\"0\">\n"
            switch row.verdict {
            case .regression:
                xml += "      <failure message=\"\(HTML.escape(summary))\">\(HTML.escape(summary))</failure>\n"
            case .missing:
                xml += "      <skipped message=\"\(HTML.escape("no value on one side: " + summary))\"/>\n"
            case .tooFew:
                xml +=
                    "      <skipped message=\"\(HTML.escape("fewer than \(RunBatches.minimumGroupVisitors) visitors in the group: " + summary))\"/>\n"
            default:
                xml += "      <system-out>\(HTML.escape(summary))</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
