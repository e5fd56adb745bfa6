import Foundation

extension FidelityText {
    /// The scores as JSON (keys sorted, so the same run and file give the same bytes).
    package var json: String {
        struct Gap: Encodable {
            var runMinute: Int
            var time: String
            var run: Double
            var real: Double
            var gap: Double
        }
        struct Series: Encodable {
            var name: String
            var mape: Double?
            var comparedMinutes: Int
            var scoredMinutes: Int
            var largestGap: Gap?
        }
        struct Broken: Encodable {
            var time: String
            var line: Int?
            var queueoutflow: Double
            var safetynetoutflow: Double
            var totaloutflow: Double
        }
        struct Identity: Encodable {
            var checkedMinutes: Int
            var unchecked: String?
            var broken: [Broken]
        }
        struct Verdict: Encodable {
            var rule: String
            var value: Double?
            var holds: Bool
        }
        struct Document: Encodable {
            var run: String
            var real: String
            var runSecondZero: String
            var offsetMinutes: Int
            var score: Double?
            var series: [Series]
            var totalOutflow: Identity?
            var rules: [Verdict]
            var broken: Int
        }
        // Four decimals: the scores' last bits of binary rounding say nothing and vary by platform.
        func round(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
        let document = Document(
            run: runName, real: realName, runSecondZero: real.timeText(minute: report.offsetMinutes),
            offsetMinutes: report.offsetMinutes, score: report.score.map(round),
            series: report.series.map { series in
                Series(
                    name: series.name, mape: series.mape.map(round), comparedMinutes: series.comparedMinutes,
                    scoredMinutes: series.scoredMinutes,
                    largestGap: series.largestGap.map {
                        Gap(
                            runMinute: $0.runMinute, time: $0.time, run: round($0.run), real: round($0.real),
                            gap: round($0.gap))
                    })
            },
            totalOutflow: report.identity.map { identity in
                Identity(
                    checkedMinutes: identity.checkedMinutes, unchecked: identity.unchecked,
                    broken: identity.broken.map {
                        Broken(
                            time: $0.time, line: $0.line, queueoutflow: $0.queue, safetynetoutflow: $0.safetyNet,
                            totaloutflow: $0.total)
                    })
            },
            rules: report.verdicts.map { Verdict(rule: "\($0.rule)", value: $0.value.map(round), holds: $0.holds) },
            broken: report.broken.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // Encoding plain structs of numbers and strings cannot fail.
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The overlay chart: a panel a series, the run's minutes solid and the real ones dashed, on
    /// the run's minutes (minute 0 = the run's second 0).
    package var svg: String {
        let width = 640.0
        let panelHeight = 110.0
        let names = report.series.map(\.name)
        let height = Double(names.count) * panelHeight + 30
        // A viewBox, so a narrow page (report.html at phone width) scales the chart down
        // instead of cutting it off.
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\(quoted(height)) viewBox=\"0 0 \(Int(width)) \(Int(height.rounded(.up)))\" font-family=\"sans-serif\" font-size=\"11\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"8\" y=\"16\">\(escape(runName)) (solid) against \(escape(realName)) (dashed), by the run's minute</text>",
        ]
        for (index, name) in names.enumerated() {
            parts.append(panel(name, top: 30 + Double(index) * panelHeight, width: width, height: panelHeight - 20))
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n"
    }

    private func panel(_ name: String, top: Double, width: Double, height: Double) -> String {
        let runValues = run.series[name] ?? []
        let realValues = (0..<run.count).map { minute -> Double? in
            let realMinute = minute + report.offsetMinutes
            guard let values = real.series[name], values.indices.contains(realMinute) else { return nil }
            return values[realMinute]
        }
        let highest = max(1, (runValues + realValues).compactMap { $0 }.max() ?? 1)
        let left = 50.0
        let plotWidth = width - left - 10
        func x(_ minute: Int) -> Double { left + plotWidth * Double(minute) / Double(max(1, run.count - 1)) }
        func y(_ value: Double) -> Double { top + height - height * value / highest }
        func path(_ values: [Double?]) -> String {
            var commands: [String] = []
            var drawing = false
            for (minute, value) in values.enumerated() {
                guard let value else {
                    drawing = false
                    continue
                }
                commands.append("\(drawing ? "L" : "M")\(format(x(minute))),\(format(y(value)))")
                drawing = true
            }
            return commands.joined(separator: " ")
        }
        return [
            "<g>",
            "<text x=\"\(format(left))\" y=\"\(format(top - 3))\">\(name) (0–\(FidelityText.number(highest)))</text>",
            "<rect x=\"\(format(left))\" y=\"\(format(top))\" width=\"\(format(plotWidth))\" height=\"\(format(height))\" fill=\"none\" stroke=\"#ccc\"/>",
            "<path d=\"\(path(runValues))\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\"/>",
            "<path d=\"\(path(realValues))\" fill=\"none\" stroke=\"#d1242f\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
            "</g>",
        ].joined(separator: "\n")
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
    private func quoted(_ value: Double) -> String { "\"\(format(value))\"" }
    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The chart's path beside a Markdown file: `summary.md` → `summary.svg`, else FILE.svg.
    package static func chartPath(besideMarkdown path: String) -> String {
        (path.hasSuffix(".md") ? String(path.dropLast(3)) : path) + ".svg"
    }
}
