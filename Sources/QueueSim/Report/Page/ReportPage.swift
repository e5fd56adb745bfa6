import Foundation
import Histogram
import QueueClientCore

/// `report.html`: one self-contained file (inline CSS and SVG, no script, no external
/// resource) that shows a run: the header and thresholds, outcomes and failure causes by
/// group, the launch over time, latency over time, wait distributions, generator health.
///
/// Everything is aggregated: charts have at most 600 points, tables one row per group and
/// outcome, so the file stays small for a million visitors.
struct ReportPage {
    struct Header {
        var startedAt: String
        var endedAt: String
        var durationMs: Int64
        var exitStatus: RunExitStatus
        var requests: Int
        var incomplete: String?
        /// A merged run: its shards, their start lag and generator health.
        var merged: MergedShardsSummary?
        /// The wall-clock instant of second 0, for clock times on the time axes (nil in virtual
        /// time, whose seconds are simulated).
        var startInstant: Date? = nil
    }

    var description: RunDescription
    var header: Header
    var verdicts: [ThresholdVerdict]
    var statistics: OutcomeStatistics
    var series: TimelineSeries
    var picture: LaunchPicture
    var generator: GeneratorReport?
    /// The answers by endpoint and the queue page's answer times (`run.json` keeps both, so
    /// `queuesim report` draws them again); nil when not recorded (a recovered run, an older queuesim's).
    var endpoints: [EndpointFigures]? = nil
    var queuePageLatency: QueuePageLatencyFigures? = nil
    /// The configuration's groups table, made ahead (`ConfigurationSection.render`); nil: made
    /// with the page.
    var groupsTable: String? = nil

    func render() -> String {
        var html = ""
        render { html += $0 }
        return html
    }

    /// The page section by section, for a writer that streams it to the file: with 2,000
    /// groups' wait curves a page is megabytes, and one string grown to hold it all cost
    /// twice that at the run's peak (issue 51).
    func render(_ emit: (String) throws -> Void) rethrows {
        try emit(
            """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>queuesim: \(HTML.escape(description.scenarioName)) (\(HTML.escape(description.runId)))</title>
            <style>\(Self.style)</style></head><body>

            """)
        try emit(banner())
        try emit(headerSection())
        try emit(
            ConfigurationSection.render(
                description.configuration, connections: connectionModel, groupsTable: groupsTable))
        try emit(thresholdsSection())
        try emit(outcomesSection())
        try emit(endpointsSection())
        try emit(launchSection())
        try emit(latencySection())
        try emit(waitDistributionSection())
        if let generator { try emit(generatorSection(generator)) }
        try emit(
            "<footer>queuesim \(HTML.escape(QueueSimVersion.current)) · run \(HTML.escape(description.runId))</footer>\n"
        )
        try emit("</body></html>\n")
    }

    private func headerSection() -> String {
        let visitors = statistics.visitorCount
        let facts: [(String, String)] = [
            ("scenario file", description.scenarioPath),
            ("seed", String(description.seed)),
            ("clock", description.clock.rawValue),
            ("endpoint", description.endpoint),
            ("started (UTC)", header.startedAt),
            ("ended (UTC)", header.endedAt),
            ("run length", ThresholdTable.formatMilliseconds(Double(header.durationMs))),
            ("visitors", String(visitors)),
            ("requests", String(header.requests)),
            (
                "exit status",
                "\(header.exitStatus.rawValue): "
                    + (description.shard != nil && header.exitStatus == .success
                        ? "the shard finished (the run's verdict is queuesim merge's)"
                        : header.exitStatus.meaning(thresholdCount: verdicts.count))
            ),
        ]
        var html = "<header><h1>\(HTML.escape(description.scenarioName))</h1>\n<dl>"
        for (term, value) in facts {
            html += "<dt>\(HTML.escape(term))</dt><dd>\(HTML.escape(value))</dd>"
        }
        html += "</dl>\n"
        if let incomplete = header.incomplete {
            html += "<p class=\"warn\">Incomplete: \(HTML.escape(incomplete))</p>\n"
        }
        if let merged = header.merged {
            html +=
                "<p\(merged.missing.isEmpty ? "" : " class=\"warn\"")>This report was \(HTML.escape(merged.headline)).</p>\n<ul>"
            for line in merged.shardLines { html += "<li>\(HTML.escape(line))</li>" }
            html += "</ul>\n"
        }
        return html + "</header>\n"
    }

    /// PASS, FAIL or why neither, first of all: the one word a reader came for.
    private func banner() -> String {
        let status = header.exitStatus
        let (word, style): (String, String) =
            switch status {
            case .success: description.shard != nil ? ("SHARD DONE", "pass") : ("PASS", "pass")
            case .thresholdFailed: ("FAIL", "fail")
            case .interrupted, .terminated: ("INTERRUPTED", "warn")
            case .partial: ("PARTIAL", "warn")
            case .guardrailStopped: ("STOPPED BY GUARDRAIL", "fail")
            case .invalidInput, .aborted: ("ABORTED", "fail")
            }
        let failed = verdicts.filter { !$0.passed && $0.notJudged == nil }
        var detail =
            description.shard != nil && status == .success
            ? "the shard finished; queuesim merge judges the run"
            : status.meaning(thresholdCount: verdicts.count)
        if status == .success, !verdicts.isEmpty { detail = "all \(verdicts.count) thresholds held" }
        if !failed.isEmpty {
            detail = failed.map { "\(ThresholdTable.displayName($0.threshold)) was \(ThresholdTable.measuredText($0))" }
                .joined(separator: "; ")
        }
        return
            "<div id=\"verdict\" class=\"banner \(style)\"><strong>\(word)</strong> exit \(status.rawValue): \(HTML.escape(detail))</div>\n"
    }

    /// `device`, `shared` or both by group, as the wall clock ran it (`generator.connections`);
    /// on the virtual clock no connection is opened, and the page says so.
    private var connectionModel: String? {
        if let connections = generator?.connections {
            return connections + (generator?.connectionCounts ?? "")
        }
        guard let groups = description.configuration?.groups else { return nil }
        let models = Set(groups.map(\.connections)).sorted().joined(separator: ", ")
        // A merged report has no generator of its own: the shards' model is the configured one.
        return description.clock == .virtual
            ? "none opened on the virtual clock (configured: \(models))" : "\(models) (as configured)"
    }

    private func thresholdsSection() -> String {
        var html = "<section id=\"thresholds\"><h2>Thresholds</h2>\n"
        if let shard = description.shard?.shard {
            html +=
                "<p>Shard \(HTML.escape(String(describing: shard))) of a sharded run: its share is not judged; <code>queuesim merge</code> judges the thresholds on the whole run.</p>\n"
        } else if verdicts.isEmpty {
            html += "<p>No thresholds set: the exit status does not judge this run.</p>\n"
        } else {
            html +=
                "<div class=\"scroll\"><table><tr><th>metric</th><th>limit</th><th>measured</th><th>verdict</th></tr>\n"
            for verdict in verdicts {
                let metric = verdict.threshold.metric
                let measured = ThresholdTable.measuredText(verdict)
                html +=
                    "<tr><td>\(HTML.escape(ThresholdTable.displayName(verdict.threshold)))</td>"
                    + "<td>\(HTML.escape(verdict.threshold.comparator.rawValue)) \(HTML.escape(ThresholdTable.format(verdict.threshold.limit, as: metric)))</td>"
                    + "<td class=\"num\">\(HTML.escape(measured))</td>"
                    + "<td class=\"\(verdict.notJudged != nil ? "" : verdict.passed ? "pass" : "fail")\">\(HTML.escape(verdict.word))</td></tr>\n"
            }
            html += "</table></div>\n"
        }
        return html + "</section>\n"
    }

    private func outcomesSection() -> String {
        var html = """
            <section id="outcomes"><h2>Outcomes by group</h2>
            <div class="scroll"><table><tr><th>group</th><th>outcome</th><th>count</th><th>share</th><th>enqueue p50</th><th>p95</th><th>p99</th><th>wait p50</th><th>p95</th><th>p99</th><th>connect p50</th><th>p99</th><th>TLS p50</th><th>p99</th></tr>

            """
        func row(_ group: String, _ outcome: VisitorOutcome, _ cell: OutcomeStatistics.Cell, of total: Int) -> String {
            let share = total > 0 ? Double(cell.count) / Double(total) * 100 : 0
            var cells = [
                HTML.escape(group), outcome.rawValue, String(cell.count), String(format: "%.2f%%", share),
            ]
            let columns: [(TimingReading, MeasurementCap?)] = [
                (cell.timings.reading(.enqueue), nil), (cell.timings.reading(.wait), description.waitCap),
            ]
            for (histogram, cap) in columns {
                for percentile in [50.0, 95, 99] {
                    cells.append(Self.percentileCell(histogram, percentile, cap: cap))
                }
            }
            // Handshakes of the first request (issue 28): empty on the virtual clock and on a
            // warm shared pool, whose requests open no connection.
            for histogram in [cell.timings.reading(.connect), cell.timings.reading(.tls)] {
                for percentile in [50.0, 99] { cells.append(Self.percentileCell(histogram, percentile, cap: nil)) }
            }
            return "<tr class=\"\(outcome.rawValue)\">"
                + cells.enumerated().map { index, cell in
                    index >= 2 ? "<td class=\"num\">\(cell)</td>" : "<td>\(cell)</td>"
                }.joined() + "</tr>\n"
        }
        let shown = shownGroups
        for group in shown {
            for outcome in VisitorOutcome.allCases {
                guard let cell = statistics.cell(group: group, outcome: outcome) else { continue }
                html += row(statistics.groupNames[group], outcome, cell, of: statistics.visitorsPerGroup[group])
            }
        }
        for outcome in VisitorOutcome.allCases {
            guard let cell = statistics.cellAcrossGroups(outcome: outcome) else { continue }
            html += row(SummaryReport.allGroups, outcome, cell, of: statistics.visitorCount)
        }
        html += "</table></div>\n"
        html += Self.moreGroupsNote(
            hiddenGroups { statistics.visitorsPerGroup[$0] > 0 }, "had visitors", see: "summary.csv")
        if picture.queuedOnScriptPage > 0 {
            html +=
                "<p class=\"note\">\(picture.queuedOnScriptPage) visitor(s) ended <code>queued</code> on a real queue "
                + "page: it advances by its own script, which queuesim does not run, so it was loaded once and not "
                + "reloaded, as a phone does. Against a real room a rehearsal measures the enqueue, SafetyNet passes, "
                + "the proxy path and your own API, not the wait.</p>\n"
        }
        html += "<h3>Why visitors failed</h3>\n"
        var anyCause = false
        for group in shown {
            let name = statistics.groupNames[group]
            let causes = picture.topCauses(of: name)
            guard !causes.isEmpty else { continue }
            anyCause = true
            html +=
                "<h4>\(HTML.escape(name))</h4><div class=\"scroll\"><table><tr><th>cause</th><th>visitors</th><th>example</th></tr>\n"
            for cause in causes {
                html +=
                    "<tr><td>\(HTML.escape(cause.key))</td><td class=\"num\">\(cause.count)</td><td><code>\(HTML.escape(cause.example))</code></td></tr>\n"
            }
            if let other = picture.otherCauses[name] {
                html += "<tr><td>other causes</td><td class=\"num\">\(other)</td><td></td></tr>\n"
            }
            html += "</table></div>\n"
        }
        let hiddenFailures = hiddenGroups { !picture.topCauses(of: statistics.groupNames[$0]).isEmpty }
        if !anyCause, hiddenFailures == 0 {
            html += "<p>No visitor ended in error, unavailable, closed or restarted.</p>\n"
        }
        html += Self.moreGroupsNote(
            hiddenFailures, "had visitors who failed", see: "summary.csv and the error column of visitors.csv")
        return html + "</section>\n"
    }

    /// `1.23s`, `32m 54s`, `–` without data, and for a wait at its cap `≥ 30m 0s (capped by
    /// client.maxWait)`: the visitors behind it gave up, their real wait is unknown.
    static func percentileCell(_ histogram: some TimingDistribution, _ percentile: Double, cap: MeasurementCap?)
        -> String
    {
        guard histogram.totalCount > 0 else { return "–" }
        let value = histogram.valueAtPercentile(percentile)
        if let cap, cap.caps(Double(value)) {
            return HTML.escape(cap.describe { Durations.text(milliseconds: Int64($0)) })
        }
        return HTML.escape(Durations.text(milliseconds: value))
    }

    private func waitDistributionSection() -> String {
        var html = "<section id=\"waits\"><h2>Wait-time distribution by group</h2>\n"
        var lines: [SVGChart.Series] = []
        var longest = 0.0
        var cappedGroups: [String] = []
        for group in shownGroups {
            let name = statistics.groupNames[group]
            // Read from the sorted list where a group's waits are few: no histogram is made.
            guard let histogram = picture.waitsByGroup[name]?.reading, histogram.totalCount > 0 else { continue }
            let points = stride(from: 0.0, through: 100, by: 2).map { percent -> (x: Double, y: Double) in
                (Double(histogram.valueAtPercentile(percent)) / 1000, percent)
            }
            longest = max(longest, Double(histogram.maxRecorded) / 1000)
            lines.append(.init(name: "\(name) (\(histogram.totalCount) waited)", points: points))
            // Where a group's curve reaches the cap, the share above is visitors who gave up.
            if let cap = description.waitCap,
                let first = [50.0, 90, 95, 99, 100].first(where: { cap.caps(Double(histogram.valueAtPercentile($0))) })
            {
                cappedGroups.append(
                    "\(name): from p\(Int(first)), \(cap.describe { Durations.text(milliseconds: Int64($0)) })")
            }
        }
        let moreWaits = Self.moreGroupsNote(
            hiddenGroups { (picture.waitsByGroup[statistics.groupNames[$0]]?.totalCount ?? 0) > 0 },
            "had visitors who waited", see: "summary.csv")
        guard !lines.isEmpty else {
            guard moreWaits.isEmpty else { return html + moreWaits + "</section>\n" }
            return html + "<p>No visitor entered the queue page.</p></section>\n"
        }
        html += SVGChart(
            title: "Share of the visitors who waited, by how long they waited (cumulative)",
            xLabel: "wait (m:ss)", yLabel: "visitors who waited this long or less", unit: .percent,
            series: lines, xMax: max(longest, 1), xAxis: .duration
        ).render()
        if !cappedGroups.isEmpty {
            html +=
                "<p class=\"fail\">Waits at the cap are visitors who gave up, not measured waits: "
                + cappedGroups.map(HTML.escape).joined(separator: "; ") + "</p>\n"
        }
        return html + moreWaits + "</section>\n"
    }

    private func generatorSection(_ generator: GeneratorReport) -> String {
        var facts = [
            "\(generator.loops) event loop\(generator.loops == 1 ? "" : "s"), \(String(format: "%.1f", generator.cpuSeconds)) s of CPU"
        ]
        if let perRequest = generator.cpuMicrosecondsPerRequest {
            facts.append(String(format: "%.0f µs of CPU per request", perRequest))
        }
        if let p99 = generator.arrivalLagP99Ms { facts.append(String(format: "arrival lag p99 %.1f ms", p99)) }
        if let p99 = generator.loopLagP99Ms { facts.append(String(format: "event-loop lag p99 %.1f ms", p99)) }
        // Which HTTP version each TLS endpoint spoke (h2 by ALPN, or HTTP/1.1). An endpoint's
        // URL has no space to wrap at: on a phone's width it breaks anywhere rather than overflow.
        var protocols = (generator.protocolsByEndpoint ?? []).map {
            "<li style=\"overflow-wrap:anywhere\">\(HTML.escape($0.summary))</li>"
        }
        // Who resumed TLS sessions: iOS devices across their connections, Android never.
        if let handshakes = generator.tlsHandshakes {
            protocols.append("<li>\(HTML.escape(TLSHandshakeFigures.summary(handshakes)))</li>")
        }
        let warn = generator.saturatedWindows.isEmpty ? "" : " class=\"warn\""
        return
            "<section id=\"generator\"><h2>Generator health</h2>\n<p\(warn)>\(HTML.escape(generator.verdict))</p>\n<ul>"
            + facts.map { "<li>\(HTML.escape($0))</li>" }.joined() + protocols.joined() + "</ul></section>\n"
    }

    static let style = """
        :root{--fg:#1b1f24;--bg:#fff;--muted:#5a6270;--grid:#d8dce2;--c0:#1f6feb;--c1:#1a7f37;--c2:#cf222e;--c3:#8250df;--win:rgba(207,34,46,.10);--mark:#9a6700;--okbg:#dafbe1;--kobg:#ffebe9;--warnbg:#fff8c5}
        @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9da7b3;--grid:#30363d;--c0:#58a6ff;--c1:#3fb950;--c2:#ff7b72;--c3:#d2a8ff;--win:rgba(255,123,114,.16);--mark:#d29922;--okbg:#12261e;--kobg:#2d1214;--warnbg:#2e2610}}
        @media print{:root{--fg:#000;--bg:#fff;--muted:#333;--grid:#ccc}.narrow{display:none}.wide{display:block}}
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);max-width:1220px;margin:0 auto;padding:16px}
        h1{margin:.2em 0}h2{border-bottom:1px solid var(--grid);padding-bottom:4px;margin-top:28px}
        .banner{padding:10px 14px;border-radius:6px;font-size:16px;margin:4px 0 12px}.banner strong{font-size:22px;margin-right:10px}
        .banner.pass{background:var(--okbg);color:var(--c1)}.banner.fail{background:var(--kobg);color:var(--c2)}.banner.warn{background:var(--warnbg);color:var(--mark)}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
        .scroll{overflow-x:auto;max-width:100%}.scroll td:first-child,.scroll th:first-child{position:sticky;left:0;background:var(--bg)}
        table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 10px;border-bottom:1px solid var(--grid);text-align:left;white-space:nowrap}
        tr.total td{font-weight:600}.note{color:var(--muted);font-size:12px}
        td.num{text-align:right;font-variant-numeric:tabular-nums}.pass{color:var(--c1)}.fail,.warn{color:var(--c2);font-weight:600}
        figure{margin:12px 0}figcaption{font-weight:600}svg{width:100%;height:auto;display:block}
        .narrow{display:none}@media (max-width:700px){.wide{display:none}.narrow{display:block}body{padding:8px}dl{grid-template-columns:1fr}dt{margin-top:4px}}
        .grid{stroke:var(--grid)}.axis{stroke:var(--muted)}.tick,.label{fill:var(--muted);font-size:12px}
        path{fill:none;stroke-width:2}.window{fill:var(--win)}.mark{stroke:var(--mark);stroke-dasharray:4 3;stroke-width:1.5}
        path.s0{stroke:var(--c0)}path.s1{stroke:var(--c1)}path.s2{stroke:var(--c2)}path.s3{stroke:var(--c3)}
        path.band{stroke:none;fill-opacity:.25}path.band.s0{fill:var(--c0)}path.band.s1{fill:var(--c1)}path.band.s2{fill:var(--c2)}path.band.s3{fill:var(--c3)}
        .hover{fill:transparent;stroke:none}.hover:hover{fill:var(--win)}
        .key{font-weight:400;margin-left:12px;white-space:nowrap}.key::before{content:"";display:inline-block;width:14px;height:3px;margin-right:4px;vertical-align:middle;background:var(--c0)}
        .key.s1::before{background:var(--c1)}.key.s2::before{background:var(--c2)}.key.s3::before{background:var(--c3)}
        code{font-size:12px;word-break:break-all}footer{color:var(--muted);margin-top:32px;font-size:12px}
        """
}
