import Foundation

/// One chart of sweep.html: a figure against the swept key, a line per combination of the
/// other keys with its seed band, the goal's line, the fluid model's line and a mark on
/// every capped point.
///
/// Drawn twice like report.html's charts (`SVGChart`): wide (shown above 700 px) and narrow
/// (a phone), because one drawing scaled to 390 px shrinks its text to nothing. The ticks are
/// round (`10m`, `20m`, `25%`), the x labels are thinned until they do not touch, the line
/// labels and the key sit below the drawing (never on the data), and the fluid model's line is
/// dashed in a colour of its own and drawn last, so it shows where it lies on the simulated one.
struct SweepChart {
    let page: SweepPage
    let metric: Int

    struct Frame {
        var width: Double
        var height: Double
        var left: Double
        var yTicks: Int
        var fontSize: Double
    }

    static let wide = Frame(width: 720, height: 280, left: 64, yTicks: 5, fontSize: 11)
    static let narrow = Frame(width: 380, height: 240, left: 52, yTicks: 4, fontSize: 11)
    static let right = 16.0
    static let top = 12.0
    static let bottom = 30.0
    static let modelColour = "#1d2330"
    static let goalColour = "#c62828"

    var plan: SweepPlan { page.plan }
    var results: SweepResults { page.results }
    var figure: SweepMetric { plan.metrics[metric] }
    var model: [Double?]? { page.fluid.figures(for: figure) }
    var goals: [Threshold] { plan.goals.filter { SweepMetric(threshold: $0).column == figure.column } }

    func render() -> String {
        let name = page.escape(SweepText.metricName(figure))
        return "<figure><figcaption>\(name)</figcaption>\n<div class=\"wide\">\(draw(Self.wide))</div>"
            + "<div class=\"narrow\">\(draw(Self.narrow))</div>\n\(legend())</figure>\n"
    }

    /// Round ticks from 0 to at least the highest figure, band, goal and model value.
    func yTicks(_ frame: Frame) -> [Double] {
        var most = 0.0
        for point in plan.points {
            if let interval = results.interval(point: point.index, metric: metric) {
                most = max(most, interval.high ?? interval.mean, interval.mean)
            }
            if let value = model?[point.index] { most = max(most, value) }
        }
        for goal in goals { most = max(most, goal.limit) }
        switch figure.unit {
        case .share: return SVGChart.niceTicks(max: 1, count: frame.yTicks)
        case .milliseconds: return SVGChart.durationTicks(max: max(most, 1), count: frame.yTicks)
        case .count, .perSecond: return SVGChart.niceTicks(max: max(most, 1), count: frame.yTicks)
        }
    }

    /// A tick's label: `10m`, `1h 30m`, `45s`, `25%`, `2,000`.
    func tickLabel(_ value: Double) -> String {
        switch figure.unit {
        case .milliseconds:
            value == 0
                ? "0"
                : value < 1000
                    ? "\(Int(value.rounded()))ms" : ScenarioUnits.describe(.milliseconds(Int64(value.rounded())))
        case .share: SweepUnit.decimalText((value * 1000).rounded() / 10) + "%"
        case .count: ScenarioUnits.grouped(value)
        case .perSecond: ScenarioUnits.grouped(value) + "/s"
        }
    }

    /// The x labels to write: the first, then each far enough from the last written that the
    /// two do not touch (about 0.6 em a character, a gap of 1 em). A label within 24 px of the
    /// plot's left or right edge is anchored at its start or end so it stays inside, and its
    /// extent is measured from that anchor (the first label, anchored at its start, reaches a
    /// whole width to the right, not half).
    static func spacedLabels(
        _ labels: [(x: Double, text: String)], fontSize: Double, left: Double = -.infinity,
        right: Double = .infinity
    ) -> [(x: Double, text: String, anchor: String)] {
        var kept: [(x: Double, text: String, anchor: String)] = []
        var lastEnd = -Double.infinity
        for label in labels.sorted(by: { $0.x < $1.x }) {
            let width = Double(label.text.count) * fontSize * 0.6
            let anchor = label.x > right - 24 ? "end" : label.x < left + 24 ? "start" : "middle"
            let start =
                switch anchor {
                case "start": label.x
                case "end": label.x - width
                default: label.x - width / 2
                }
            guard kept.isEmpty || start >= lastEnd + fontSize else { continue }
            kept.append((label.x, label.text, anchor))
            lastEnd = start + width
        }
        return kept
    }

    private func draw(_ frame: Frame) -> String {
        let axis = plan.axes[page.xAxis]
        let xs = axis.values.map(\.magnitude)
        let (xMin, xMax) = (xs.min() ?? 0, xs.max() ?? 1)
        let ticks = yTicks(frame)
        let yMax = ticks.last ?? 1
        let plotRight = frame.width - Self.right
        let plotBottom = frame.height - Self.bottom
        func x(_ value: Double) -> Double {
            xMax > xMin
                ? frame.left + (value - xMin) / (xMax - xMin) * (plotRight - frame.left) : (frame.left + plotRight) / 2
        }
        func y(_ value: Double) -> Double { Self.top + (1 - min(max(0, value), yMax) / yMax) * (plotBottom - Self.top) }
        let font = "font-size=\"\(f(frame.fontSize))\""
        var svg =
            "<svg viewBox=\"0 0 \(f(frame.width)) \(f(frame.height))\" role=\"img\" aria-label=\"\(page.escape(SweepText.metricName(figure)))\">"
        for tick in ticks {
            svg +=
                "<line x1=\"\(f(frame.left))\" x2=\"\(f(plotRight))\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\" class=\"grid\"/>"
            svg +=
                "<text x=\"\(f(frame.left - 6))\" y=\"\(f(y(tick) + 4))\" \(font) text-anchor=\"end\" class=\"tick\">\(page.escape(tickLabel(tick)))</text>"
        }
        let labels = Self.spacedLabels(
            axis.values.map { (x(($0.magnitude)), SweepText.value($0, of: axis)) }, fontSize: frame.fontSize,
            left: frame.left, right: plotRight)
        for label in labels {
            svg +=
                "<text x=\"\(f(label.x))\" y=\"\(f(plotBottom + 16))\" \(font) text-anchor=\"\(label.anchor)\" class=\"tick\">\(page.escape(label.text))</text>"
        }
        for goal in goals {
            svg +=
                "<line x1=\"\(f(frame.left))\" x2=\"\(f(plotRight))\" y1=\"\(f(y(goal.limit)))\" y2=\"\(f(y(goal.limit)))\" stroke=\"\(Self.goalColour)\" stroke-dasharray=\"6 4\"><title>goal: \(page.escape(goal.source))</title></line>"
        }
        let lines = page.lines()
        for (number, line) in lines.enumerated() {
            svg += simulated(line.points, colour: SweepPage.palette[number % SweepPage.palette.count], x: x, y: y)
        }
        // The model last, so it shows where it lies on a simulated line.
        for line in lines { svg += modelLine(line.points, x: x, y: y) }
        return svg + "</svg>"
    }

    private func simulated(
        _ points: [SweepPoint], colour: String, x: (Double) -> Double, y: (Double) -> Double
    ) -> String {
        let xAxis = page.xAxis
        let stats = points.compactMap { point in
            results.interval(point: point.index, metric: metric).map { (point, $0) }
        }
        guard !stats.isEmpty else { return "" }
        let upper = stats.map { "\(f(x($0.0.values[xAxis].magnitude))),\(f(y($0.1.high ?? $0.1.mean)))" }
        let lower = stats.reversed().map { "\(f(x($0.0.values[xAxis].magnitude))),\(f(y($0.1.low ?? $0.1.mean)))" }
        var svg =
            "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(colour)\" fill-opacity=\"0.15\"/>"
        let means = stats.map { "\(f(x($0.0.values[xAxis].magnitude))),\(f(y($0.1.mean)))" }
        svg +=
            "<polyline points=\"\(means.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
        for (point, interval) in stats {
            let (cx, cy) = (x(point.values[xAxis].magnitude), y(interval.mean))
            let filled = results.meetsEveryGoal(point: point.index) ? colour : "#fff"
            let tip = page.escape(page.tooltip(point, interval, figure, metric: metric))
            svg +=
                "<circle cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"3.5\" fill=\"\(filled)\" stroke=\"\(colour)\" stroke-width=\"1.5\"><title>\(tip)</title></circle>"
            if results.cap(point: point.index, metric: metric) != nil {
                // A lower bound: an arrow up from the point, the real figure is at least this.
                svg +=
                    "<path d=\"M\(f(cx - 5)),\(f(cy - 7)) L\(f(cx)),\(f(cy - 14)) L\(f(cx + 5)),\(f(cy - 7)) Z\" fill=\"\(Self.goalColour)\" class=\"capped\"><title>capped: \(tip)</title></path>"
            }
        }
        return svg
    }

    private func modelLine(_ points: [SweepPoint], x: (Double) -> Double, y: (Double) -> Double) -> String {
        guard let model else { return "" }
        let coordinates = points.compactMap { point in
            model[point.index].map { "\(f(x(point.values[page.xAxis].magnitude))),\(f(y($0)))" }
        }
        guard !coordinates.isEmpty else { return "" }
        return
            "<polyline points=\"\(coordinates.joined(separator: " "))\" fill=\"none\" stroke=\"\(Self.modelColour)\" stroke-dasharray=\"5 4\" stroke-width=\"1.5\" class=\"model\"><title>fluid model</title></polyline>"
    }

    /// The key, below the drawing: each line's colour and combination, the goal, the model,
    /// the capped mark; HTML, so it wraps on a phone instead of running off the drawing.
    private func legend() -> String {
        var keys: [String] = []
        for (number, line) in page.lines().enumerated() where !line.label.isEmpty {
            let colour = SweepPage.palette[number % SweepPage.palette.count]
            keys.append("<span class=\"key\" style=\"--k:\(colour)\">\(page.escape(line.label))</span>")
        }
        for goal in goals {
            keys.append("<span class=\"key goal\">goal: \(page.escape(goal.source))</span>")
        }
        if let model, model.contains(where: { $0 != nil }) {
            keys.append("<span class=\"key model\">fluid model (dashed)</span>")
        }
        let capped = plan.points.contains { results.cap(point: $0.index, metric: metric) != nil }
        if capped, let cap = plan.points.lazy.compactMap({ results.cap(point: $0.index, metric: self.metric) }).first {
            keys.append(
                "<span class=\"key capped\">▲ capped: at least this (\(page.escape(cap.words)))</span>")
        }
        return keys.isEmpty ? "" : "<div class=\"legend\">\(keys.joined(separator: " "))</div>"
    }

    private func f(_ value: Double) -> String { SVGChart.f(value) }
}
