import QueueClientCore

/// One rule of `queuesim compare`: how far a metric may move in its bad direction between the
/// base run and the new one before the comparison calls it a regression. Written `METRIC: CHANGE`
/// (`wait.p95: +10%`, `error: +0.5pp`, `passed: -1pp`, `enqueue.p99: +200ms`, `wait.p95: off`),
/// in a scenario's `compare:` block or with `--rule`.
///
/// The sign says which way is worse: `+` rules watch a rise, `-` rules a fall. The size is
/// relative (`%` of the base value), in percentage points (`pp`, shares only), a duration
/// (timings only) or a plain number (counts only).
package struct CompareRule: Sendable, Equatable {
    package enum Allowance: Sendable, Equatable {
        /// A fraction of the base value: `+10%` is 0.1.
        case relative(Double)
        /// Share points as a fraction: `+0.5pp` is 0.005.
        case points(Double)
        /// Milliseconds, for timings.
        case milliseconds(Double)
        /// A count, for counts.
        case count(Double)
        /// The metric is shown but not judged.
        case off
    }

    package var metric: Threshold.Metric
    /// +1 when a rise is worse, -1 when a fall is.
    package var worseDirection: Double
    package var allowance: Allowance
    /// As written: `wait.p95: +10%`.
    package var source: String

    /// What a comparison judges when neither the run nor `--rule` says otherwise (docs/compare.md).
    package static let defaultRuleTexts = [
        "passed: -1pp", "error: +0.5pp", "unavailable: +0.5pp", "abandoned: +1pp", "enqueue.p95: +10%",
        "wait.p95: +10%",
    ]

    package static var defaults: [CompareRule] {
        // Every default parses (CompareRuleTests checks it), so none is dropped here.
        defaultRuleTexts.compactMap { try? CompareRule(parsing: $0) }
    }

    package struct Problem: Error, Equatable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// `METRIC: CHANGE`, as `--rule` takes it.
    package init(parsing text: String) throws(Problem) {
        guard let colon = text.firstIndex(of: ":") else {
            throw Problem(
                message: "`\(text)` is not a rule: write METRIC: CHANGE, such as `wait.p95: +10%` or `error: +0.5pp`")
        }
        try self.init(
            metric: String(text[..<colon].trimmingSpaces),
            change: String(text[text.index(after: colon)...].trimmingSpaces))
    }

    /// A `compare:` block's `METRIC: CHANGE` pair.
    package init(metric metricText: String, change: String) throws(Problem) {
        guard let metric = ThresholdParser.metric(metricText) else {
            let hint = ThresholdParser.suggestion(for: metricText).map { " (did you mean `\($0)`?)" } ?? ""
            throw Problem(
                message:
                    "`\(metricText)` is not a metric\(hint): an outcome (`passed`, `error`), `OUTCOME.count`, `visitors` or a timing statistic (`wait.p95`, `enqueue.max`)"
            )
        }
        self.metric = metric
        source = "\(metricText): \(change)"
        if change == "off" {
            worseDirection = 1
            allowance = .off
            return
        }
        guard let sign = change.first, sign == "+" || sign == "-" else {
            throw Problem(
                message:
                    "the change in `\(source)` needs a sign: `+` when a rise is worse (`+10%`), `-` when a fall is (`-1pp`), or `off`"
            )
        }
        worseDirection = sign == "+" ? 1 : -1
        let size = String(change.dropFirst().trimmingSpaces)
        allowance = try Self.allowance(size, of: metric, in: source)
    }

    private static func allowance(_ size: String, of metric: Threshold.Metric, in source: String) throws(Problem)
        -> Allowance
    {
        func number(_ text: Substring) throws(Problem) -> Double {
            guard let value = ScenarioUnits.decimal(text.trimmingSpaces), value >= 0, value.isFinite else {
                throw Problem(
                    message: "`\(source)`: `\(size)` is not a size (a number such as `10%`, `0.5pp`, `200ms`)")
            }
            return value
        }
        if size.hasSuffix("pp") {
            guard case .outcomeRatio = metric else {
                throw Problem(message: "`\(source)`: percentage points (`pp`) are for shares such as `error`; use `%`")
            }
            return .points(try number(size.dropLast(2)) / 100)
        }
        if size.hasSuffix("%") { return .relative(try number(size.dropLast()) / 100) }
        switch metric {
        case .outcomeRatio:
            throw Problem(message: "`\(source)`: a share moves by percentage points (`+0.5pp`) or relatively (`+10%`)")
        case .timing:
            guard let duration = ScenarioUnits.duration(size), size.last.map({ !$0.isNumber }) ?? false,
                duration >= .zero
            else {
                throw Problem(
                    message: "`\(source)`: a timing moves by a duration with its unit (`+200ms`, `+5s`) or by `%`")
            }
            return .milliseconds(duration.milliseconds)
        case .outcomeCount, .visitorCount:
            return .count(try number(Substring(size)))
        }
    }

    /// How far `new` may move from `base` in the bad direction.
    package func limit(base: Double) -> Double? {
        switch allowance {
        case .relative(let fraction): abs(base) * fraction
        case .points(let points): points
        case .milliseconds(let milliseconds): milliseconds
        case .count(let count): count
        case .off: nil
        }
    }
}

extension Duration {
    /// Whole and fractional milliseconds.
    fileprivate var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
