extension ScenarioValidator {
    /// `compare:` — a mapping of `METRIC: CHANGE` (`wait.p95: +10%`, `error: +0.5pp`,
    /// `enqueue.p95: off`), read by `queuesim compare` from the run's run.json.
    mutating func compareRules(_ raw: YamlNode?) -> [CompareRule] {
        guard let raw, !raw.isNull else { return [] }
        guard case .mapping(let pairs) = raw.content else {
            fail(
                "`compare` is a mapping of METRIC: CHANGE, such as `wait.p95: +10%` or `error: +0.5pp`, found \(raw.kindDescription)",
                at: raw.mark)
            return []
        }
        var rules: [CompareRule] = []
        for pair in pairs {
            guard let metric = pair.key.scalarText else {
                fail(
                    "a `compare` key names a metric, such as `wait.p95`, found \(pair.key.kindDescription)",
                    at: pair.key.mark)
                continue
            }
            guard let change = pair.value.scalarText, !pair.value.isNull else {
                fail(
                    "`compare.\(metric)` is a change such as `+10%`, `+0.5pp`, `-1pp`, `+200ms` or `off`, found \(pair.value.kindDescription)",
                    at: pair.value.mark)
                continue
            }
            guard ThresholdParser.metric(metric) != nil else {
                fail(
                    "`\(metric)` is not a metric\(ThresholdParser.suggestion(for: metric).map { " (did you mean `\($0)`?)" } ?? ""): an outcome (`passed`, `error`), `OUTCOME.count`, `visitors` or a timing statistic (`wait.p95`)",
                    at: pair.key.mark)
                continue
            }
            do {
                rules.append(try CompareRule(metric: metric, change: String(change.trimmingSpaces)))
            } catch {
                fail(error.message, at: pair.value.mark)
            }
        }
        return rules
    }
}
