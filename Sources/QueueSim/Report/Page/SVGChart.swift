import Foundation

/// A chart drawn as inline SVG: no script, no font, no network. Colours come from the page's
/// CSS classes (`s0`…`s3`), so the light, dark and print styles apply.
///
/// Each chart is drawn twice: wide (1180 units, shown above 700 px, with hover targets whose
/// SVG `<title>` gives the exact value) and narrow (400 units, shown on a phone, fewer points
/// and ticks), because one drawing scaled to 390 px shrinks its 12-unit text to 4 px. A
/// phone has no hover, so the narrow drawing carries no hover targets.
struct SVGChart {
    enum Unit {
        case count, perSecond, milliseconds, percent

        func format(_ value: Double) -> String {
            switch self {
            case .count: return SVGChart.compact(value)
            case .perSecond: return SVGChart.compact(value) + "/s"
            case .percent: return SVGChart.compact(value) + "%"
            case .milliseconds:
                // The one duration form (`0.5ms`, `250ms`, `1.5s`, `2m 30s`, `10m`), not `2.5 min`;
                // below a second the decimals stay (ticks of 0.5ms would read `1ms`).
                if value < 1000 { return SVGChart.compact(value) + "ms" }
                return ScenarioUnits.describe(.milliseconds(Int64(value.rounded())))
            }
        }

        /// The exact value for a hover title (`Unit.format` rounds for the axis).
        func exact(_ value: Double) -> String {
            switch self {
            case .milliseconds: Durations.text(milliseconds: Int64(value.rounded()))
            case .perSecond: SVGChart.trim(value, decimals: 2) + "/s"
            case .percent: SVGChart.trim(value, decimals: 2) + "%"
            case .count: SVGChart.trim(value, decimals: 2)
            }
        }
    }

    /// How a series is drawn: per-second counts as steps (an instant burst stays a burst, not
    /// a triangle), percentiles and distributions as lines through their points.
    enum Style: Equatable {
        case line
        /// Each point holds from its x for `width` seconds.
        case steps(width: Double)
        /// A per-second rate, each point holding for `width` seconds: steps while a frame has
        /// room for them (`Frame.maxBlocks`), else each block's mean as a line inside a band
        /// from its lowest to its highest step (`SVGChart+Band.swift`), so a rate that
        /// alternates second by second (a comb of spikes) reads as its level and its spread.
        case rate(width: Double)
    }

    /// What the x axis shows: time since the run's start (`m:ss`), wall-clock time (UTC) of a
    /// run with a start instant, or a length of time (the wait distribution).
    enum XAxis {
        case elapsed
        case clock(start: Date)
        case duration
    }

    struct Series {
        var name: String
        /// x in seconds of the run (or of wait, for a distribution), y in `unit`.
        var points: [(x: Double, y: Double)]
        var style: Style = .line
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var unit: Unit
    var series: [Series]
    var xMax: Double
    var marks: [TimelineMark] = []
    var xMin = 0.0
    var xAxis = XAxis.elapsed

    struct Frame {
        var width: Double
        var height: Double
        var left: Double
        var xTicks: Int
        var yTicks: Int
        var maxPoints: Int
        var hover: Bool
        /// The rotated y-axis title: on a phone it would run into the tick labels, and the
        /// ticks carry the unit (`500/s`, `20 s`) and the caption says what is drawn.
        var yTitle: Bool
        /// Rate steps drawn as they are up to this many; more are drawn in blocks.
        var maxBlocks: Int
    }

    static let wide = Frame(
        width: 1180, height: 300, left: 80, xTicks: 10, yTicks: 5, maxPoints: 600, hover: true, yTitle: true,
        maxBlocks: 120)
    static let narrow = Frame(
        width: 400, height: 260, left: 50, xTicks: 4, yTicks: 4, maxPoints: 150, hover: false, yTitle: false,
        maxBlocks: 50)
    static let right = 16.0
    static let top = 16.0
    static let bottom = 46.0
    /// Hover targets per series at most: each is an element with a title, and a page of ten
    /// charts should stay well under a megabyte.
    static let hoverTargets = 120

    func render() -> String {
        let legend = series.enumerated().map { index, line in
            "<span class=\"key s\(index % 4)\">\(HTML.escape(line.name))</span>"
        }.joined(separator: " ")
        return "<figure><figcaption>\(HTML.escape(title)) \(legend)</figcaption>\n"
            + "<div class=\"wide\">\(draw(Self.wide))</div><div class=\"narrow\">\(draw(Self.narrow))</div></figure>\n"
    }

    private func draw(_ frame: Frame) -> String {
        let plotWidth = frame.width - frame.left - Self.right
        let plotHeight = frame.height - Self.top - Self.bottom
        let shown = series.map { Self.thin($0, to: frame.maxPoints) }
        let yMaxData = shown.flatMap { $0.points.map(\.y) }.max() ?? 0
        let yTicks =
            unit == .milliseconds
            ? Self.durationTicks(max: max(yMaxData, 1), count: frame.yTicks)
            : Self.niceTicks(max: max(yMaxData, unit == .percent ? 100 : 1), count: frame.yTicks)
        let yMax = yTicks.last ?? 1
        let xSpan = max(xMax - xMin, 1)
        let xEnd = xMin + xSpan
        func x(_ value: Double) -> Double { frame.left + (min(max(value, xMin), xEnd) - xMin) / xSpan * plotWidth }
        func y(_ value: Double) -> Double { Self.top + plotHeight - value / yMax * plotHeight }
        var svg = """
            <svg viewBox="0 0 \(Int(frame.width)) \(Int(frame.height))" role="img" aria-label="\(HTML.escape(title))">
            <title>\(HTML.escape(title))</title>

            """
        for mark in marks {
            let at = Double(mark.fromMs) / 1000
            guard at <= xEnd else { continue }
            let from = x(at)
            if let to = mark.toMs {
                let end = x(Double(to) / 1000)
                svg +=
                    "<rect class=\"window\" x=\"\(Self.f(from))\" y=\"\(Self.f(Self.top))\" width=\"\(Self.f(max(1, end - from)))\" height=\"\(Self.f(plotHeight))\"><title>\(HTML.escape(mark.label))</title></rect>\n"
            } else if at >= xMin {
                svg +=
                    "<line class=\"mark\" x1=\"\(Self.f(from))\" x2=\"\(Self.f(from))\" y1=\"\(Self.f(Self.top))\" y2=\"\(Self.f(Self.top + plotHeight))\"><title>\(HTML.escape(mark.label))</title></line>\n"
            }
        }
        for tick in yTicks {
            svg +=
                "<line class=\"grid\" x1=\"\(Self.f(frame.left))\" x2=\"\(Self.f(frame.left + plotWidth))\" y1=\"\(Self.f(y(tick)))\" y2=\"\(Self.f(y(tick)))\"/>"
            svg +=
                "<text class=\"tick\" x=\"\(Self.f(frame.left - 6))\" y=\"\(Self.f(y(tick) + 4))\" text-anchor=\"end\">\(HTML.escape(unit.format(tick)))</text>\n"
        }
        for (tick, label) in TimeTicks.ticks(from: xMin, to: xEnd, count: frame.xTicks, axis: xAxis) {
            // A label at the right edge would be cut in half (`1:00:0`): it ends at its tick.
            let anchor = x(tick) > frame.width - Self.right - 20 ? "end" : "middle"
            svg +=
                "<text class=\"tick\" x=\"\(Self.f(x(tick)))\" y=\"\(Self.f(Self.top + plotHeight + 16))\" text-anchor=\"\(anchor)\">\(HTML.escape(label))</text>\n"
        }
        svg +=
            "<line class=\"axis\" x1=\"\(Self.f(frame.left))\" x2=\"\(Self.f(frame.left + plotWidth))\" y1=\"\(Self.f(Self.top + plotHeight))\" y2=\"\(Self.f(Self.top + plotHeight))\"/>\n"
        svg +=
            "<text class=\"label\" x=\"\(Self.f(frame.left + plotWidth / 2))\" y=\"\(Self.f(frame.height - 6))\" text-anchor=\"middle\">\(HTML.escape(xLabel))</text>\n"
        if frame.yTitle {
            svg +=
                "<text class=\"label\" transform=\"translate(14 \(Self.f(Self.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(HTML.escape(yLabel))</text>\n"
        }
        var blockSeconds: Double?
        for (index, line) in shown.enumerated() where !line.points.isEmpty {
            let path: String
            switch line.style {
            case .line:
                path = Self.linePath(line.points, x: x, y: y)
            case .steps(let width):
                path = Self.stepsPath(line.points, width: width, x: x, y: y)
            case .rate(let width):
                let factor = Self.blockFactor(steps: line.points.count, width: width, frame: frame)
                guard factor > 1 else {
                    path = Self.stepsPath(line.points, width: width, x: x, y: y)
                    break
                }
                let blocks = Self.blocks(line.points, width: width, factor: factor)
                blockSeconds = width * Double(factor)
                svg +=
                    "<path class=\"band s\(index % 4)\" d=\"\(Self.bandPath(blocks, x: x, y: y))\"><title>\(HTML.escape(line.name)): lowest to highest second in each \(Self.seconds(width * Double(factor)))</title></path>\n"
                path = Self.linePath(blocks.map { ($0.x + $0.width / 2, $0.mean) }, x: x, y: y)
            }
            svg += "<path class=\"s\(index % 4)\" d=\"\(path)\"><title>\(HTML.escape(line.name))</title></path>\n"
        }
        if let blockSeconds {
            // Said in the drawing itself: the wide and the narrow drawing block differently.
            svg +=
                "<text class=\"tick\" x=\"\(Self.f(frame.width - Self.right))\" y=\"12\" text-anchor=\"end\">line: mean per \(Self.seconds(blockSeconds)); band: lowest to highest second</text>\n"
        }
        if frame.hover { svg += hoverTargets(x: x, y: y, plotHeight: plotHeight) }
        return svg + "</svg>"
    }

    /// Invisible targets whose titles give exact values: a column per step (every series'
    /// value in it), a dot per line point.
    private func hoverTargets(x: (Double) -> Double, y: (Double) -> Double, plotHeight: Double) -> String {
        var svg = ""
        if let rates = rateHoverTargets(x: x, plotHeight: plotHeight) { svg += rates }
        let stepped = series.filter { if case .steps = $0.style { true } else { false } }
        if let first = stepped.first, case .steps(let width) = first.style {
            let columns = Self.thin(first, to: Self.hoverTargets)
            let columnWidth = columns.points.count > 1 ? columns.points[1].x - columns.points[0].x : width
            let others = stepped.map { Self.thin($0, to: Self.hoverTargets) }
            for (index, point) in columns.points.enumerated() {
                let values = others.compactMap { line -> String? in
                    guard index < line.points.count else { return nil }
                    return "\(line.name) \(unit.exact(line.points[index].y))"
                }
                let span =
                    "\(TimeTicks.label(point.x, axis: xAxis))–\(TimeTicks.label(point.x + columnWidth, axis: xAxis))"
                svg +=
                    "<rect class=\"hover\" x=\"\(Self.f(x(point.x)))\" y=\"\(Self.f(Self.top))\" width=\"\(Self.f(max(1, x(point.x + columnWidth) - x(point.x))))\" height=\"\(Self.f(plotHeight))\"><title>\(HTML.escape(span + ": " + values.joined(separator: ", ")))</title></rect>\n"
            }
        }
        let lines = series.filter { $0.style == .line }.map { Self.thin($0, to: Self.hoverTargets) }
        // Percentiles of one chart share their x: one column per x naming them all costs a third
        // of a dot per line and point (a long run's page was half hover targets).
        if let first = lines.first, lines.allSatisfy({ $0.points.map(\.x) == first.points.map(\.x) }) {
            for (index, point) in first.points.enumerated() {
                let left = index > 0 ? (first.points[index - 1].x + point.x) / 2 : point.x
                let right = index + 1 < first.points.count ? (point.x + first.points[index + 1].x) / 2 : point.x
                let values = lines.map { "\($0.name) \(unit.exact($0.points[index].y))" }.joined(separator: ", ")
                svg +=
                    "<rect class=\"hover\" x=\"\(Self.f(x(left)))\" y=\"\(Self.f(Self.top))\" width=\"\(Self.f(max(2, x(right) - x(left))))\" height=\"\(Self.f(plotHeight))\"><title>\(HTML.escape("\(TimeTicks.label(point.x, axis: xAxis)): \(values)"))</title></rect>\n"
            }
            return svg
        }
        for line in lines {
            for point in line.points {
                svg +=
                    "<circle class=\"hover\" cx=\"\(Self.f(x(point.x)))\" cy=\"\(Self.f(y(point.y)))\" r=\"5\"><title>\(HTML.escape("\(line.name) at \(TimeTicks.label(point.x, axis: xAxis)): \(unit.exact(point.y))"))</title></circle>\n"
            }
        }
        return svg
    }

    /// At most `limit` points: steps merge neighbours (their mean, over a wider step), lines
    /// keep every n-th point.
    static func thin(_ series: Series, to limit: Int) -> Series {
        let count = series.points.count
        // A rate is put in blocks by `draw`, which keeps each block's lowest and highest step.
        if case .rate = series.style { return series }
        guard count > limit, limit > 0 else { return series }
        let factor = (count + limit - 1) / limit
        var thinned = series
        switch series.style {
        case .line:
            thinned.points = stride(from: 0, to: count, by: factor).map { series.points[$0] }
            if let last = series.points.last, thinned.points.last?.x != last.x { thinned.points.append(last) }
        case .steps(let width):
            thinned.style = .steps(width: width * Double(factor))
            thinned.points = stride(from: 0, to: count, by: factor).map { start in
                let slice = series.points[start..<min(count, start + factor)]
                return (slice.first!.x, slice.reduce(0) { $0 + $1.y } / Double(slice.count))
            }
        case .rate: break
        }
        return thinned
    }

    /// Round tick values from 0 to at least `max`: steps of 1, 2 or 5 × 10ⁿ.
    static func niceTicks(max: Double, count: Int = 5) -> [Double] {
        guard max > 0, max.isFinite else { return [0, 1] }
        let raw = max / Double(count)
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        // The last tick is the first at or above `max`, so no line leaves the plot.
        var ticks: [Double] = [0]
        while ticks.last! < max { ticks.append(ticks.last! + step) }
        return ticks
    }

    /// Round ticks for durations in milliseconds: 1-2-5 steps below a second, then 1, 2, 5,
    /// 10, 15, 30 seconds or minutes and 1, 2, 3, 6, 12 hours — `5 min`, never `6.7 min`.
    static func durationTicks(max: Double, count: Int = 5) -> [Double] {
        guard max > 0, max.isFinite else { return [0, 1] }
        let raw = max / Double(count)
        let subsecond = niceTicks(max: max, count: count)
        guard raw > 500 else { return subsecond }
        let step = TimeTicks.steps.map { $0 * 1000 }.first { $0 >= raw } ?? (raw / 86_400_000).rounded(.up) * 86_400_000
        var ticks: [Double] = [0]
        while ticks.last! < max { ticks.append(ticks.last! + step) }
        return ticks
    }

    /// `m:ss`, or `h:mm:ss` past an hour.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, rest) = total.quotientAndRemainder(dividingBy: 3600)
        let (minutes, secs) = rest.quotientAndRemainder(dividingBy: 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    /// 1 decimal at most, `k`/`M` for large values.
    static func compact(_ value: Double) -> String {
        if value >= 1_000_000 { return trim(value / 1_000_000) + "M" }
        if value >= 10_000 { return trim(value / 1000) + "k" }
        return trim(value)
    }

    static func trim(_ value: Double, decimals: Int = 1) -> String {
        ThresholdTable.trimmed(value, decimals: decimals)
    }

    static func f(_ value: Double) -> String { trim(value) }
}

/// Where the time axis puts its ticks: on round values of the clock — 1, 2, 5, 10, 15, 30
/// seconds or minutes, 1, 2, 3, 6, 12 hours — never at 8:20 and 16:40.
enum TimeTicks {
    static let steps: [Double] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    ]

    static func ticks(from start: Double, to end: Double, count: Int, axis: SVGChart.XAxis) -> [(Double, String)] {
        let span = max(end - start, 1)
        let step = steps.first { span / $0 <= Double(count) } ?? (span / Double(count)).rounded(.up)
        // On a clock axis the ticks fall on round times of day, not round offsets from the start.
        let offset: Double =
            if case .clock(let date) = axis { date.timeIntervalSince1970.truncatingRemainder(dividingBy: step) } else {
                0
            }
        var tick = ((start + offset) / step).rounded(.up) * step - offset
        var ticks: [(Double, String)] = []
        while tick <= end + 1e-9 {
            ticks.append((tick, label(tick, axis: axis, step: step)))
            tick += step
        }
        return ticks
    }

    /// `m:ss` since the start, or `HH:MM` (`HH:MM:SS` for ticks under a minute apart) in UTC.
    static func label(_ seconds: Double, axis: SVGChart.XAxis, step: Double = 1) -> String {
        switch axis {
        case .elapsed, .duration:
            return SVGChart.clock(seconds)
        case .clock(let start):
            let instant = Int64((start.timeIntervalSince1970 + seconds).rounded())
            let ofDay = ((instant % 86400) + 86400) % 86400
            let two = { (value: Int64) in value < 10 ? "0\(value)" : "\(value)" }
            let text = "\(two(ofDay / 3600)):\(two(ofDay / 60 % 60))"
            return step < 60 ? text + ":\(two(ofDay % 60))" : text
        }
    }
}

/// Text made safe for HTML element content and attribute values.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
