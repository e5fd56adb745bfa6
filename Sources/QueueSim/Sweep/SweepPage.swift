import Foundation

/// sweep.html: the sweep on one self-contained page (inline SVG, no scripts, no fetches),
/// like report.html. The answer on top; each figure against the swept key with its seed
/// band (the 95 % interval) and the goal's line; the fluid model beside the simulated wait
/// p95 (or, for a burst with exponential patience, the share who give up); a heat map when two
/// keys vary; every point in a table.
package struct SweepPage {
    let results: SweepResults
    let answer: SweepAnswer?
    let sentence: String
    let fluid: SweepFluid

    package init(results: SweepResults, answer: SweepAnswer?, sentence: String, fluid: SweepFluid) {
        self.results = results
        self.answer = answer
        self.sentence = sentence
        self.fluid = fluid
    }

    var plan: SweepPlan { results.plan }

    /// The key on the charts' x axis: the one the answer is about, else the first.
    var xAxis: Int { plan.objective.flatMap { o in plan.axes.firstIndex { $0.key == o.key } } ?? 0 }

    package func render() -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <title>queuesim sweep: \(escape(plan.scenarioName))</title>
            <style>
            body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:16px 24px;color:#1d2330;max-width:1100px}
            h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:28px 0 8px}
            .answer{font-size:18px;padding:12px 16px;border-radius:6px;margin:12px 0;overflow-wrap:anywhere}
            .yes{background:#e3f4e8;border:1px solid #7cc493}.no{background:#fbe7e7;border:1px solid #e08a8a}
            table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #d5d9e0;padding:3px 6px;text-align:right;white-space:nowrap}
            th{background:#f3f5f8}.scroll{overflow-x:auto;max-width:100%}
            figure{margin:12px 0 20px;max-width:760px}figcaption{font-weight:600;margin-bottom:2px}
            svg{display:block;width:100%;height:auto;background:#fff}.heat svg{width:auto;max-width:none}
            .grid{stroke:#eef0f4}.tick{fill:#556}
            .legend{font-size:12px;color:#445;margin-top:2px}.key{white-space:nowrap;margin-right:12px}
            .key::before{content:"";display:inline-block;width:16px;height:0;border-top:2px solid var(--k,#2f6fdf);margin-right:4px;vertical-align:middle}
            .key.goal::before{border-top:2px dashed #c62828}.key.model::before{border-top:2px dashed #1d2330}.key.capped::before{display:none}.key.capped{color:#c62828}
            .muted{color:#667}td.capped{color:#c62828}
            .narrow{display:none}
            @media (max-width:700px){.wide{display:none}.narrow{display:block}body{padding:8px}.answer{font-size:16px}}
            @media print{.narrow{display:none}.wide{display:block}}
            </style></head><body>
            <h1>queuesim sweep: \(escape(plan.scenarioName))</h1>
            <div class="answer \(answer == nil ? "no" : "yes")">\(escape(sentence))</div>
            <p class="muted">\(plan.points.count) point(s) × \(plan.seeds.count) seed(s) (\(plan.seeds.map(String.init).joined(separator: ", "))); \
            \(results.finishedRuns) of \(plan.runCount) runs finished. Goals: \(plan.goals.isEmpty ? "none" : plan.goals.map { escape($0.source) }.joined(separator: "; ")). \
            Bands: the 95 % Student t interval of the mean over seeds.</p>

            """
        if let cap = plan.points.lazy.flatMap({ point in
            plan.metrics.indices.lazy.compactMap { self.results.cap(point: point.index, metric: $0) }
        }).first {
            html +=
                "<p class=\"muted\">▲ and ≥ mark a figure at its cap (\(escape(cap.words))): visitors stopped waiting there, so the real figure is at least that, and no goal &lt; or &lt;= on it is met.</p>\n"
        }
        if plan.axes.count == 2 { html += heatMap() }
        html += "<h2>Figures against \(escape(plan.axes[xAxis].key))</h2>\n"
        for index in plan.metrics.indices where hasData(metric: index) {
            html += SweepChart(page: self, metric: index).render()
        }
        html += table()
        html += "</body></html>\n"
        return html
    }

    /// A figure worth a chart and a column: a goal's, the wait p95, or one that is not 0
    /// everywhere (an outcome nobody had draws a flat line).
    private func hasData(metric: Int) -> Bool {
        let column = plan.metrics[metric].column
        let means = plan.points.compactMap { results.interval(point: $0.index, metric: metric)?.mean }
        guard !means.isEmpty else { return false }
        return column == SweepMetric.waitP95.column
            || plan.goals.contains { SweepMetric(threshold: $0).column == column } || means.contains { $0 != 0 }
    }

    /// The lines of a chart: one per combination of the other keys, points in x order.
    func lines() -> [(label: String, points: [SweepPoint])] {
        var groups: [(label: String, points: [SweepPoint])] = []
        for point in plan.points {
            let others = SweepAnswer.others(of: point, excluding: xAxis)
            let label = zip(plan.axes.enumerated().filter { $0.offset != xAxis }.map(\.element), others)
                .map { "\(SweepText.keyName($0.key)) \(SweepText.value($1, of: $0))" }.joined(separator: ", ")
            if let index = groups.firstIndex(where: { $0.label == label }) {
                groups[index].points.append(point)
            } else {
                groups.append((label, [point]))
            }
        }
        return groups.map { ($0.label, $0.points.sorted { $0.values[xAxis].magnitude < $1.values[xAxis].magnitude }) }
    }

    static let palette = ["#2f6fdf", "#d9822b", "#3a9a5b", "#b8457a", "#6c5fc7", "#8a6d3b"]

    /// A point's figure for its hover title: `waitingRoom.outflow 25/min: mean 19m 58s (95 %
    /// interval …)`, or for a capped figure `at least 30m 0s (capped by client.maxWait)`.
    func tooltip(_ point: SweepPoint, _ interval: SweepInterval, _ metric: SweepMetric, metric index: Int) -> String {
        var text = zip(plan.axes, point.values).map { "\($0.key) \($1.text)" }.joined(separator: ", ")
        if let cap = results.cap(point: point.index, metric: index) {
            return text + ": at least \(SweepText.figure(Double(cap.milliseconds), metric.unit)) (\(cap.words))"
        }
        text += ": mean \(SweepText.figure(interval.mean, metric.unit))"
        if let low = interval.low, let high = interval.high {
            text += " (95 % interval \(SweepText.figure(low, metric.unit))–\(SweepText.figure(high, metric.unit)))"
        }
        return text
    }

    /// Two keys: a cell per point, green where every seed met every goal, with the first
    /// goal's figure (the wait p95 without goals).
    private func heatMap() -> String {
        let (columns, rows) = (plan.axes[0].values, plan.axes[1].values)
        let headline = plan.goals.first.map { SweepMetric(threshold: $0) } ?? SweepMetric.waitP95
        let metricIndex = plan.metrics.firstIndex { $0.column == headline.column }
        let (cellWidth, cellHeight, left, top) = (74.0, 26.0, 90.0, 40.0)
        let width = left + Double(columns.count) * cellWidth + 10
        let height = top + Double(rows.count) * cellHeight + 10
        var svg = "<h2>Every point: \(escape(plan.axes[0].key)) across, \(escape(plan.axes[1].key)) down</h2>\n"
        svg += "<div class=\"scroll heat\"><svg width=\"\(Int(width))\" height=\"\(Int(height))\">"
        svg +=
            "<text x=\"4\" y=\"14\" font-size=\"11\">cells: \(escape(SweepText.metricName(headline))); green: every goal met in every seed</text>"
        for (column, value) in columns.enumerated() {
            svg +=
                "<text x=\"\(f(left + (Double(column) + 0.5) * cellWidth))\" y=\"\(f(top - 6))\" font-size=\"10\" text-anchor=\"middle\">\(escape(SweepText.value(value, of: plan.axes[0])))</text>"
        }
        for (row, value) in rows.enumerated() {
            svg +=
                "<text x=\"\(f(left - 6))\" y=\"\(f(top + (Double(row) + 0.65) * cellHeight))\" font-size=\"10\" text-anchor=\"end\">\(escape(SweepText.value(value, of: plan.axes[1])))</text>"
        }
        for point in plan.points {
            guard let column = columns.firstIndex(of: point.values[0]), let row = rows.firstIndex(of: point.values[1])
            else { continue }
            let complete = results.isComplete(point: point.index)
            let fill = !complete ? "#eceff3" : results.meetsEveryGoal(point: point.index) ? "#a8dcb5" : "#f2b5b5"
            let text = metricIndex.map { cell(point: point.index, metric: $0) } ?? "–"
            let (cellX, cellY) = (left + Double(column) * cellWidth, top + Double(row) * cellHeight)
            svg +=
                "<rect x=\"\(f(cellX))\" y=\"\(f(cellY))\" width=\"\(f(cellWidth - 2))\" height=\"\(f(cellHeight - 2))\" fill=\"\(fill)\"/>"
            svg +=
                "<text x=\"\(f(cellX + cellWidth / 2))\" y=\"\(f(cellY + cellHeight * 0.65))\" font-size=\"10\" text-anchor=\"middle\">\(escape(text))</text>"
        }
        return svg + "</svg></div>\n"
    }

    /// A point's figure as a table or heat-map cell: the mean, or `≥ 30m 0s` when capped.
    func cell(point: Int, metric: Int) -> String {
        let unit = plan.metrics[metric].unit
        if let cap = results.cap(point: point, metric: metric) {
            return "≥ " + SweepText.figure(Double(cap.milliseconds), unit)
        }
        return results.interval(point: point, metric: metric).map { SweepText.figure($0.mean, unit) } ?? ""
    }

    private func table() -> String {
        var html = "<h2>Points</h2>\n<div class=\"scroll\"><table><tr><th>#</th>"
        html += plan.axes.map { "<th>\(escape($0.key))</th>" }.joined()
        html += "<th>seeds</th><th>every goal</th>"
        let shown = plan.metrics.enumerated().filter { hasData(metric: $0.offset) }
        html += shown.map { "<th>\(escape(SweepText.metricName($0.element)))</th>" }.joined()
        let showsAbandonment = fluid.abandonedShare.contains { $0 != nil }
        html += "<th>fluid wait p95</th>" + (showsAbandonment ? "<th>fluid abandoned</th>" : "") + "</tr>\n"
        for point in plan.points {
            let finished = results.runs(ofPoint: point.index).count(where: { $0 != nil })
            html +=
                "<tr><td>\(point.index + 1)</td>"
                + zip(plan.axes, point.values).map { "<td>\(escape(SweepText.value($1, of: $0)))</td>" }.joined()
            html +=
                "<td>\(finished)/\(plan.seeds.count)</td><td>\(results.meetsEveryGoal(point: point.index) ? "yes" : "no")</td>"
            for (index, _) in shown {
                let cap = results.cap(point: point.index, metric: index)
                html +=
                    (cap.map { "<td class=\"capped\" title=\"\(escape($0.words))\">" } ?? "<td>")
                    + "\(escape(cell(point: point.index, metric: index)))</td>"
            }
            html += "<td>\(fluid.waitP95[point.index].map { escape(SweepText.figure($0, .milliseconds)) } ?? "")</td>"
            if showsAbandonment {
                html +=
                    "<td>\(fluid.abandonedShare[point.index].map { escape(SweepText.figure($0, .share)) } ?? "")</td>"
            }
            html += "</tr>\n"
        }
        return html + "</table></div>\n"
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
