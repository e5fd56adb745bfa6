/// A line chart drawn as inline SVG: no script, no font, no network. Colours come from the
/// page's CSS classes (`s0`…`s3`), so the light, dark and print styles apply.
struct SVGChart {
    enum Unit {
        case count, perSecond, milliseconds, percent

        func format(_ value: Double) -> String {
            switch self {
            case .count: return SVGChart.compact(value)
            case .perSecond: return SVGChart.compact(value) + "/s"
            case .percent: return SVGChart.compact(value) + "%"
            case .milliseconds:
                if value >= 60_000 { return SVGChart.compact(value / 60_000) + " min" }
                if value >= 1000 { return SVGChart.compact(value / 1000) + " s" }
                return SVGChart.compact(value) + " ms"
            }
        }
    }

    struct Series {
        var name: String
        /// x in seconds of the run (or of wait, for a distribution), y in `unit`.
        var points: [(x: Double, y: Double)]
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var unit: Unit
    var series: [Series]
    var xMax: Double
    var marks: [TimelineMark] = []

    static let width = 1180.0
    static let height = 300.0
    static let left = 80.0
    static let right = 20.0
    static let top = 16.0
    static let bottom = 46.0

    func render() -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let yMaxData = series.flatMap { $0.points.map(\.y) }.max() ?? 0
        let yTicks = Self.niceTicks(max: max(yMaxData, unit == .percent ? 100 : 1))
        let yMax = yTicks.last ?? 1
        let xSpan = max(xMax, 1)
        func x(_ value: Double) -> Double { Self.left + value / xSpan * plotWidth }
        func y(_ value: Double) -> Double { Self.top + plotHeight - value / yMax * plotHeight }
        var svg = """
            <svg viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" role="img" aria-label="\(HTML.escape(title))">
            <title>\(HTML.escape(title))</title>

            """
        for mark in marks {
            let from = x(Double(mark.fromMs) / 1000)
            guard from <= Self.left + plotWidth else { continue }
            if let to = mark.toMs {
                let end = min(x(Double(to) / 1000), Self.left + plotWidth)
                svg +=
                    "<rect class=\"window\" x=\"\(Self.f(from))\" y=\"\(Self.f(Self.top))\" width=\"\(Self.f(max(1, end - from)))\" height=\"\(Self.f(plotHeight))\"><title>\(HTML.escape(mark.label))</title></rect>\n"
            } else {
                svg +=
                    "<line class=\"mark\" x1=\"\(Self.f(from))\" x2=\"\(Self.f(from))\" y1=\"\(Self.f(Self.top))\" y2=\"\(Self.f(Self.top + plotHeight))\"><title>\(HTML.escape(mark.label))</title></line>\n"
            }
        }
        for tick in yTicks {
            svg +=
                "<line class=\"grid\" x1=\"\(Self.f(Self.left))\" x2=\"\(Self.f(Self.left + plotWidth))\" y1=\"\(Self.f(y(tick)))\" y2=\"\(Self.f(y(tick)))\"/>"
            svg +=
                "<text class=\"tick\" x=\"\(Self.f(Self.left - 6))\" y=\"\(Self.f(y(tick) + 4))\" text-anchor=\"end\">\(HTML.escape(unit.format(tick)))</text>\n"
        }
        for tick in Self.niceTicks(max: xSpan, count: 8) where tick <= xSpan {
            svg +=
                "<text class=\"tick\" x=\"\(Self.f(x(tick)))\" y=\"\(Self.f(Self.top + plotHeight + 16))\" text-anchor=\"middle\">\(Self.clock(tick))</text>\n"
        }
        svg +=
            "<line class=\"axis\" x1=\"\(Self.f(Self.left))\" x2=\"\(Self.f(Self.left + plotWidth))\" y1=\"\(Self.f(Self.top + plotHeight))\" y2=\"\(Self.f(Self.top + plotHeight))\"/>\n"
        svg +=
            "<text class=\"label\" x=\"\(Self.f(Self.left + plotWidth / 2))\" y=\"\(Self.f(Self.height - 6))\" text-anchor=\"middle\">\(HTML.escape(xLabel))</text>\n"
        svg +=
            "<text class=\"label\" transform=\"translate(14 \(Self.f(Self.top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(HTML.escape(yLabel))</text>\n"
        for (index, line) in series.enumerated() where !line.points.isEmpty {
            let points = line.points.map { "\(Self.f(x($0.x))),\(Self.f(y($0.y)))" }.joined(separator: " ")
            svg +=
                "<polyline class=\"s\(index % 4)\" points=\"\(points)\"><title>\(HTML.escape(line.name))</title></polyline>\n"
        }
        svg += "</svg>\n"
        let legend = series.enumerated().map { index, line in
            "<span class=\"key s\(index % 4)\">\(HTML.escape(line.name))</span>"
        }.joined(separator: " ")
        return "<figure><figcaption>\(HTML.escape(title)) \(legend)</figcaption>\n\(svg)</figure>\n"
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

    private static func trim(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func f(_ value: Double) -> String { trim(value) }
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
