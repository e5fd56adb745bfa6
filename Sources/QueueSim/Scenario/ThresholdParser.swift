import QueueClientCore

/// Parses `METRIC OP VALUE` threshold lines: `passed >= 99%`, `error < 0.5%`,
/// `passed.count > 100`, `visitors >= 1000`, `wait.p95 < 5m`, `enqueue.p99.9 <= 300ms`.
package enum ThresholdParser {
    package struct Problem: Error, Equatable {
        /// Where in the line the problem starts (0 = the first character).
        package var offset: Int
        package var message: String
    }

    static let shape = "a threshold reads METRIC OPERATOR VALUE, such as `passed >= 99%` or `wait.p95 < 5m`"

    /// A line, optionally with a group prefix: `partner: wait.p95 < 5m` (metric names never hold
    /// a colon, so the prefix is unambiguous).
    package static func parse(_ line: String) -> Result<Threshold, Problem> {
        let characters = Array(line)
        let operatorAt = characters.firstIndex(where: { "<>=!".contains($0) }) ?? characters.count
        if let colon = characters[..<operatorAt].firstIndex(of: ":") {
            let group = String(characters[..<colon]).trimmingSpaces
            guard !group.isEmpty else {
                return .failure(Problem(offset: colon, message: "\(shape); a group name goes before `:`"))
            }
            let rest = String(characters[(colon + 1)...])
            switch parseUngrouped(rest) {
            case .success(var threshold):
                threshold.group = String(group)
                threshold.source = "\(group): \(threshold.source)"
                return .success(threshold)
            case .failure(var problem):
                problem.offset += colon + 1
                return .failure(problem)
            }
        }
        return parseUngrouped(line)
    }

    private static func parseUngrouped(_ line: String) -> Result<Threshold, Problem> {
        let characters = Array(line)
        // The operator is the first run of <, >, =, ! characters.
        guard let operatorStart = characters.firstIndex(where: { "<>=!".contains($0) }) else {
            return .failure(
                Problem(offset: 0, message: "\(shape); no comparison operator (<, <=, >, >=, ==, !=) in \"\(line)\""))
        }
        var operatorEnd = operatorStart
        while operatorEnd < characters.count, "<>=!".contains(characters[operatorEnd]) { operatorEnd += 1 }
        let operatorText = String(characters[operatorStart..<operatorEnd])
        guard let comparator = Threshold.Comparator(rawValue: operatorText) else {
            return .failure(
                Problem(
                    offset: operatorStart,
                    message: "`\(operatorText)` is not an operator; expected <, <=, >, >=, == or !="))
        }
        let metricText = String(characters[..<operatorStart]).trimmingSpaces
        let metricOffset = characters.firstIndex(where: { $0 != " " }) ?? 0
        let valueText = String(characters[operatorEnd...]).trimmingSpaces
        let valueOffset = characters[operatorEnd...].firstIndex(where: { $0 != " " }) ?? operatorEnd
        guard !metricText.isEmpty else {
            return .failure(Problem(offset: 0, message: "\(shape); the metric is missing"))
        }
        guard let metric = metric(String(metricText)) else {
            let hint = suggestion(for: String(metricText)).map { "did you mean `\($0)`?" } ?? "expected \(metricHelp)"
            return .failure(Problem(offset: metricOffset, message: "unknown metric `\(metricText)`; \(hint)"))
        }
        guard !valueText.isEmpty else {
            return .failure(
                Problem(offset: operatorEnd, message: "\(shape); the value after `\(operatorText)` is missing"))
        }
        let value = String(valueText)
        let limit: Double?
        let expected: String
        switch metric {
        case .outcomeRatio:
            limit = ScenarioUnits.fraction(value).flatMap { (0...1).contains($0) ? $0 : nil }
            expected = "a share from 0% to 100% such as 99% or 0.99"
        case .outcomeCount, .visitorCount:
            limit = Int(value).flatMap { $0 >= 0 ? Double($0) : nil }
            expected = "a whole number of visitors (0 or more)"
        case .timing:
            limit = ScenarioUnits.duration(value).flatMap { $0 >= .zero ? Double($0.wholeMilliseconds) : nil }
            expected = "a duration such as 300ms, 2s or 5m"
        }
        guard let limit else {
            return .failure(
                Problem(offset: valueOffset, message: "`\(metricText)` is compared with \(expected), found `\(value)`"))
        }
        return .success(
            Threshold(metric: metric, comparator: comparator, limit: limit, source: line.trimmingSpaces.description))
    }

    static let metricHelp =
        "an outcome (passed, error, …) for its share, OUTCOME.count, visitors, or enqueue|wait|total with .p50, .p95, .p99.9, .min, .max or .mean"

    /// The metric a near miss was meant to be (`waits.p95` → `wait.p95`, `passd` → `passed`,
    /// `wait.95` → `wait.p95`, `error.cout` → `error.count`), checked to parse; nil when nothing
    /// is close enough to be a plausible typo.
    static func suggestion(for text: String) -> String? {
        let outcomes = VisitorOutcome.allCases.map(\.rawValue)
        let timings = Threshold.Timing.allCases.map(\.rawValue)
        guard let dot = text.firstIndex(of: ".") else {
            return YamlKnownKeys.closest(to: text, among: outcomes + ["visitors"])
        }
        let head = String(text[..<dot])
        let tail = String(text[text.index(after: dot)...])
        let fixedHead =
            outcomes.contains(head) || timings.contains(head)
            ? head : YamlKnownKeys.closest(to: head, among: timings + outcomes)
        guard let fixedHead else { return nil }
        let fixedTail: String?
        if outcomes.contains(fixedHead) {
            fixedTail = "count"
        } else if metric("\(fixedHead).\(tail)") != nil {
            fixedTail = tail
        } else if ScenarioUnits.decimal(Substring(tail)) != nil {
            fixedTail = "p" + tail
        } else {
            fixedTail = YamlKnownKeys.closest(to: tail, among: ["p50", "p90", "p95", "p99", "max", "min", "mean"])
        }
        guard let fixedTail, case let candidate = "\(fixedHead).\(fixedTail)", candidate != text,
            metric(candidate) != nil
        else { return nil }
        return candidate
    }

    static func metric(_ text: String) -> Threshold.Metric? {
        if text == "visitors" { return .visitorCount }
        if let outcome = VisitorOutcome(rawValue: text) { return .outcomeRatio(outcome) }
        guard let dot = text.firstIndex(of: ".") else { return nil }
        let head = String(text[..<dot])
        let tail = String(text[text.index(after: dot)...])
        if let outcome = VisitorOutcome(rawValue: head), tail == "count" { return .outcomeCount(outcome) }
        guard let timing = Threshold.Timing(rawValue: head) else { return nil }
        switch tail {
        case "max": return .timing(timing, .max)
        case "min": return .timing(timing, .min)
        case "mean": return .timing(timing, .mean)
        default:
            guard tail.hasPrefix("p"), let percentile = ScenarioUnits.decimal(tail.dropFirst()), percentile > 0,
                percentile <= 100
            else {
                return nil
            }
            return .timing(timing, .percentile(percentile))
        }
    }
}
