/// A rule on a fidelity score (`queuesim compare --real`): `SERIES.mape < 10%` (the series'
/// mean absolute percentage error), `SERIES.gap <= 50` (its largest gap, in the series' unit:
/// visitors a minute, or minutes of wait), `score < 20%` (the mean of the series' errors), or
/// `SERIES.mape off` to drop a default.
package struct FidelityRule: Sendable, Equatable, CustomStringConvertible {
    package enum Measure: String, Sendable, Equatable {
        case mape, gap, score
    }

    package struct Problem: Error, Equatable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// The series judged; nil for `score`.
    package var series: String?
    package var measure: Measure
    /// The bound; nil for `off`.
    package var limit: Double?
    /// `<=` rather than `<`.
    package var inclusive: Bool

    /// What the rule judges, as `--rule` writes it (`queueoutflow.mape`, `score`).
    package var metric: String { series.map { "\($0).\(measure.rawValue)" } ?? measure.rawValue }

    package var description: String {
        guard let limit else { return "\(metric) off" }
        let bound = measure == .gap ? Self.number(limit) : "\(Self.number(limit))%"
        return "\(metric) \(inclusive ? "<=" : "<") \(bound)"
    }

    /// The defaults (docs/compare.md): the flows and the line within a tenth to a quarter.
    package static let defaults: [FidelityRule] = [
        "queueinflow.mape < 10%", "queueoutflow.mape < 10%", "queueidsinqueue.mape < 25%",
        "queueactualwaittime.mape < 25%",
    ].map { try! FidelityRule(parsing: $0) }

    package init(parsing text: String) throws(Problem) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let expected =
            "expected `SERIES.mape < 10%`, `SERIES.gap <= 50`, `score < 20%` or `SERIES.mape off`, where SERIES is one of "
            + RunMinutes.seriesNames.joined(separator: ", ")
        guard let metric = words.first, words.count == 2 || words.count == 3 else {
            throw Problem(message: "`\(text)`: \(expected)")
        }
        try self.init(metric: metric, text: text, expected: expected)
        if words.count == 2 {
            guard words[1] == "off" else { throw Problem(message: "`\(text)`: \(expected)") }
            return
        }
        guard words[1] == "<" || words[1] == "<=" else {
            throw Problem(message: "`\(text)`: the comparison must be `<` or `<=` (a score is good when small)")
        }
        inclusive = words[1] == "<="
        limit = try Self.bound(words[2], percent: measure != .gap, text: text)
    }

    private init(metric: String, text: String, expected: String) throws(Problem) {
        if metric == "score" {
            (series, measure, limit, inclusive) = (nil, .score, nil, false)
            return
        }
        let parts = metric.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let measure = Measure(rawValue: parts[1]), measure != .score else {
            throw Problem(message: "`\(text)`: \(expected)")
        }
        guard RunMinutes.seriesNames.contains(parts[0]) else {
            throw Problem(
                message: "`\(text)`: no series `\(parts[0])`; the series are "
                    + RunMinutes.seriesNames.joined(separator: ", "))
        }
        (series, self.measure, limit, inclusive) = (parts[0], measure, nil, false)
    }

    private static func bound(_ word: String, percent: Bool, text: String) throws(Problem) -> Double {
        let hasPercent = word.hasSuffix("%")
        guard hasPercent == percent, let value = Double(hasPercent ? String(word.dropLast()) : word),
            value.isFinite, value >= 0
        else {
            throw Problem(
                message: percent
                    ? "`\(text)`: the bound must be a percentage such as 10%"
                    : "`\(text)`: a gap's bound is a number in the series' unit (visitors or minutes), such as 50")
        }
        return value
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The defaults, then each of `rules` replacing an earlier one for the same metric.
    package static func inForce(_ rules: [FidelityRule]) -> [FidelityRule] {
        var result: [FidelityRule] = []
        for rule in defaults + rules {
            result.removeAll { $0.metric == rule.metric }
            result.append(rule)
        }
        return result.filter { $0.limit != nil }
    }
}
