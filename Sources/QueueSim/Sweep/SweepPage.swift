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
            body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;max-width:1100px}
            h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:28px 0 8px}
            .answer{font-size:18px;padding:12px 16px;border-radius:6px;margin:12px 0}
            .yes{background:#e3f4e8;border:1px solid #7cc493}.no{background:#fbe7e7;border:1px solid #e08a8a}
            table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #d5d9e0;padding:3px 6px;text-align:right}
            th{background:#f3f5f8}svg{background:#fff;border:1px solid #e1e4ea;margin:4px 8px 8px 0;max-width:calc(100% - 10px);height:auto}
            .wide{overflow-x:auto}
            .muted{color:#667}
            </style></head><body>
            <h1>queuesim sweep: \(escape(plan.scenarioName))</h1>
            <div class="answer \(answer == nil ? "no" : "yes")">\(escape(sentence))</div>
            <p class="muted">\(plan.points.count) point(s) × \(plan.seeds.count) seed(s) (\(plan.seeds.map(String.init).joined(separator: ", "))); \
            \(results.finishedRuns) of \(plan.runCount) runs finished. Goals: \(plan.goals.isEmpty ? "none" : plan.goals.map { escape($0.source) }.joined(separator: "; ")). \
            Bands: the 95 % Student t interval of the mean over seeds.</p>

            """
        if plan.axes.count == 2 { html += heatMap() }
        html += "<h2>Figures against \(escape(plan.axes[xAxis].key))</h2>\n"
        for index in plan.metrics.indices where hasData(metric: index) {
            html += chart(metric: index)
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
    private func lines() -> [(label: String, points: [SweepPoint])] {
        var groups: [(label: String, points: [SweepPoint])] = []
        for point in plan.points {
            let others = SweepAnswer.others(of: point, excluding: xAxis)
            let label = zip(plan.axes.enumerated().filter { $0.offset != xAxis }.map(\.element), others)
                .map { "\(SweepText.keyName($0.key)) \(SweepText.value($1))" }.joined(separator: ", ")
            if let index = groups.firstIndex(where: { $0.label == label }) {
                groups[index].points.append(point)
            } else {
                groups.append((label, [point]))
            }
        }
        return groups.map { ($0.label, $0.points.sorted { $0.values[xAxis].magnitude < $1.values[xAxis].magnitude }) }
    }

    static let palette = ["#2f6fdf", "#d9822b", "#3a9a5b", "#b8457a", "#6c5fc7", "#8a6d3b"]

    private func chart(metric index: Int) -> String {
        let metric = plan.metrics[index]
        let (width, height, left, right, top, bottom) = (520.0, 240.0, 70.0, 30.0, 24.0, 36.0)
        let xs = plan.axes[xAxis].values.map(\.magnitude)
        let (xMin, xMax) = (xs.min() ?? 0, xs.max() ?? 1)
        let goals = plan.goals.filter { SweepMetric(threshold: $0).column == metric.column }
        let model = fluid.figures(for: metric)
        var yMax = 0.0
        for point in plan.points {
            if let interval = results.interval(point: point.index, metric: index) {
                yMax = max(yMax, interval.high ?? interval.mean, interval.mean)
            }
            if let figure = model?[point.index] { yMax = max(yMax, figure) }
        }
        for goal in goals { yMax = max(yMax, goal.limit) }
        // Shares read best on 0–100 %.
        if metric.unit == .share { yMax = 1 }
        yMax = yMax > 0 ? yMax * 1.08 : 1
        func x(_ value: Double) -> Double {
            xMax > xMin ? left + (value - xMin) / (xMax - xMin) * (width - left - right) : (left + width - right) / 2
        }
        func y(_ value: Double) -> Double { top + (1 - max(0, value) / yMax) * (height - top - bottom) }
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">"
        svg +=
            "<text x=\"\(left)\" y=\"15\" font-size=\"13\" font-weight=\"600\">\(escape(SweepText.metricName(metric)))</text>"
        for tick in 0...4 {
            let value = yMax / 1.08 * Double(tick) / 4
            svg +=
                "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(f(y(value)))\" y2=\"\(f(y(value)))\" stroke=\"#eef0f4\"/>"
            svg +=
                "<text x=\"\(left - 6)\" y=\"\(f(y(value) + 4))\" font-size=\"10\" text-anchor=\"end\">\(escape(SweepText.figure(value, metric.unit)))</text>"
        }
        for value in plan.axes[xAxis].values {
            svg +=
                "<text x=\"\(f(x(value.magnitude)))\" y=\"\(f(height - bottom + 14))\" font-size=\"10\" text-anchor=\"middle\">\(escape(SweepText.value(value)))</text>"
        }
        for goal in goals {
            svg +=
                "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(f(y(goal.limit)))\" y2=\"\(f(y(goal.limit)))\" stroke=\"#c62828\" stroke-dasharray=\"6 4\"/>"
            svg +=
                "<text x=\"\(width - right - 4)\" y=\"\(f(y(goal.limit) - 4))\" font-size=\"10\" fill=\"#c62828\" text-anchor=\"end\">goal: \(escape(goal.source))</text>"
        }
        for (number, line) in lines().enumerated() {
            let color = Self.palette[number % Self.palette.count]
            let stats = line.points.compactMap { point in
                results.interval(point: point.index, metric: index).map { (point, $0) }
            }
            let upper = stats.map { "\(f(x($0.0.values[xAxis].magnitude))),\(f(y($0.1.high ?? $0.1.mean)))" }
            let lower = stats.reversed().map { "\(f(x($0.0.values[xAxis].magnitude))),\(f(y($0.1.low ?? $0.1.mean)))" }
            if stats.count > 0 {
                svg +=
                    "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(color)\" fill-opacity=\"0.15\"/>"
                let means = stats.map { "\(f(x($0.0.values[xAxis].magnitude))),\(f(y($0.1.mean)))" }
                svg +=
                    "<polyline points=\"\(means.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>"
                for (point, interval) in stats {
                    svg +=
                        "<circle cx=\"\(f(x(point.values[xAxis].magnitude)))\" cy=\"\(f(y(interval.mean)))\" r=\"3\" fill=\"\(results.meetsEveryGoal(point: point.index) ? color : "#fff")\" stroke=\"\(color)\"><title>\(escape(tooltip(point, interval, metric)))</title></circle>"
                }
            }
            if let model {
                let modelLine = line.points.compactMap { point in
                    model[point.index].map { "\(f(x(point.values[xAxis].magnitude))),\(f(y($0)))" }
                }
                if !modelLine.isEmpty {
                    svg +=
                        "<polyline points=\"\(modelLine.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-dasharray=\"2 3\" stroke-width=\"1.5\"><title>fluid model</title></polyline>"
                }
            }
            if !line.label.isEmpty {
                svg +=
                    "<text x=\"\(left + 8)\" y=\"\(f(top + 12 + Double(number) * 12))\" font-size=\"10\" fill=\"\(color)\">\(escape(line.label))</text>"
            }
        }
        if let model, model.contains(where: { $0 != nil }) {
            svg +=
                "<text x=\"\(width - right - 4)\" y=\"\(f(height - 4))\" font-size=\"10\" text-anchor=\"end\" fill=\"#667\">dotted: the fluid model</text>"
        }
        return svg + "</svg>\n"
    }

    private func tooltip(_ point: SweepPoint, _ interval: SweepInterval, _ metric: SweepMetric) -> String {
        var text = zip(plan.axes, point.values).map { "\($0.key) \($1.text)" }.joined(separator: ", ")
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
        svg += "<svg width=\"\(Int(width))\" height=\"\(Int(height))\">"
        svg +=
            "<text x=\"4\" y=\"14\" font-size=\"11\">cells: \(escape(SweepText.metricName(headline))); green: every goal met in every seed</text>"
        for (column, value) in columns.enumerated() {
            svg +=
                "<text x=\"\(f(left + (Double(column) + 0.5) * cellWidth))\" y=\"\(f(top - 6))\" font-size=\"10\" text-anchor=\"middle\">\(escape(SweepText.value(value)))</text>"
        }
        for (row, value) in rows.enumerated() {
            svg +=
                "<text x=\"\(f(left - 6))\" y=\"\(f(top + (Double(row) + 0.65) * cellHeight))\" font-size=\"10\" text-anchor=\"end\">\(escape(SweepText.value(value)))</text>"
        }
        for point in plan.points {
            guard let column = columns.firstIndex(of: point.values[0]), let row = rows.firstIndex(of: point.values[1])
            else { continue }
            let complete = results.isComplete(point: point.index)
            let fill = !complete ? "#eceff3" : results.meetsEveryGoal(point: point.index) ? "#a8dcb5" : "#f2b5b5"
            let text =
                metricIndex.flatMap { results.interval(point: point.index, metric: $0) }
                .map { SweepText.figure($0.mean, headline.unit) } ?? "–"
            let (cellX, cellY) = (left + Double(column) * cellWidth, top + Double(row) * cellHeight)
            svg +=
                "<rect x=\"\(f(cellX))\" y=\"\(f(cellY))\" width=\"\(f(cellWidth - 2))\" height=\"\(f(cellHeight - 2))\" fill=\"\(fill)\"/>"
            svg +=
                "<text x=\"\(f(cellX + cellWidth / 2))\" y=\"\(f(cellY + cellHeight * 0.65))\" font-size=\"10\" text-anchor=\"middle\">\(escape(text))</text>"
        }
        return svg + "</svg>\n"
    }

    private func table() -> String {
        var html = "<h2>Points</h2>\n<div class=\"wide\"><table><tr><th>#</th>"
        html += plan.axes.map { "<th>\(escape($0.key))</th>" }.joined()
        html += "<th>seeds</th><th>every goal</th>"
        let shown = plan.metrics.enumerated().filter { hasData(metric: $0.offset) }
        html += shown.map { "<th>\(escape(SweepText.metricName($0.element)))</th>" }.joined()
        let showsAbandonment = fluid.abandonedShare.contains { $0 != nil }
        html += "<th>fluid wait p95</th>" + (showsAbandonment ? "<th>fluid abandoned</th>" : "") + "</tr>\n"
        for point in plan.points {
            let finished = results.runs(ofPoint: point.index).count(where: { $0 != nil })
            html += "<tr><td>\(point.index + 1)</td>" + point.values.map { "<td>\(escape($0.text))</td>" }.joined()
            html +=
                "<td>\(finished)/\(plan.seeds.count)</td><td>\(results.meetsEveryGoal(point: point.index) ? "yes" : "no")</td>"
            for (index, metric) in shown {
                let interval = results.interval(point: point.index, metric: index)
                html += "<td>\(interval.map { escape(SweepText.figure($0.mean, metric.unit)) } ?? "")</td>"
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

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
