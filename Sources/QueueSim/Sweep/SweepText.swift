import Foundation

/// How a sweep writes numbers for people (the answer's sentence, sweep.html) and for files
/// (sweep.csv, sweep.json).
package enum SweepText {
    /// `1,800/min`, `1.5`, `10m`: a value as written, its number grouped. A rate of `key`
    /// written without a unit is per second, and says so (`5,000/s`): a bare number must not
    /// read as the per-minute outflow a Queue-it admin types.
    package static func value(_ value: SweepValue, key: String? = nil) -> String {
        guard let (number, unit) = SweepUnit.parse(value.text) else { return value.text }
        let suffix = unit.kind == .plain && key.map(ScenarioUnits.isRateKey) == true ? "/s" : unit.suffix
        return ScenarioUnits.grouped(number) + suffix
    }

    /// A point's value of `axis`, as `value(_:key:)` writes it.
    package static func value(_ value: SweepValue, of axis: SweepAxis) -> String {
        self.value(value, key: axis.key)
    }

    /// `outflow` for `waitingRoom.outflow`: the key's last name.
    package static func keyName(_ key: String) -> String {
        key.split(separator: ".").last.map(String.init) ?? key
    }

    /// A figure in its unit: `8m 12s`, `99.2%`, `1,234`, `410 requests/s`.
    package static func figure(_ value: Double, _ unit: SweepMetric.Unit) -> String {
        switch unit {
        case .milliseconds: duration(milliseconds: value)
        case .share: SweepUnit.decimalText((value * 1000).rounded() / 10) + "%"
        case .count: ScenarioUnits.grouped(value.rounded())
        case .perSecond: ScenarioUnits.grouped(value.rounded()) + " requests/s"
        }
    }

    /// `450ms`, `12.35s`, `8m 12s`, `1h 5m`: the report's form (`ThresholdTable.formatMilliseconds`),
    /// so a sweep's figure reads as the same run's report.html and end screen write it.
    package static func duration(milliseconds: Double) -> String {
        ThresholdTable.formatMilliseconds(max(0, milliseconds))
    }

    /// A figure in a file: shares to six decimals, everything else to one (means are not whole).
    package static func file(_ value: Double, _ unit: SweepMetric.Unit) -> String {
        switch unit {
        case .share: SweepUnit.decimalText(value)
        case .milliseconds, .count, .perSecond: SweepUnit.decimalText((value * 10).rounded() / 10)
        }
    }

    /// `wait p95` for `wait_p95_ms`; the threshold's own text where there is one.
    package static func metricName(_ metric: SweepMetric) -> String {
        var name = metric.column
        for suffix in ["_ms", "_share", "_rps"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        switch metric.source {
        case .shopPeak: return "shop peak"
        case .queueLengthPeak: return "queue length peak"
        case .queueDuration: return "queue duration"
        case .measured: return name.replacingOccurrences(of: "_", with: " ")
        }
    }

    /// The answer in one sentence (docs/sweep.md, "The answer").
    package static func sentence(results: SweepResults, answer: SweepAnswer?) -> String {
        let plan = results.plan
        let seeds = plan.seeds.count == 1 ? "in its one seed" : "in all \(plan.seeds.count) seeds"
        let partial = results.isComplete ? "" : "among the points that finished, "
        guard let objective = plan.objective, let axisIndex = plan.axes.firstIndex(where: { $0.key == objective.key })
        else {
            guard let answer else {
                return partial + "no point meets every goal \(seeds)"
            }
            let values = zip(plan.axes, answer.values).map { "\(keyName($0.key)) \(value($1, of: $0))" }
            return partial
                + "first point meeting every goal \(seeds): \(values.joined(separator: ", "))\(figures(results, answer))"
        }
        let axis = plan.axes[axisIndex]
        let name = keyName(axis.key)
        let word = objective.direction == .minimize ? "lowest" : "highest"
        let others = plan.axes.enumerated().filter { $0.offset != axisIndex }.map(\.element)
        let atEvery = others.map { axis in
            " at every \(keyName(axis.key)) tried (\(axis.values.map { value($0, of: axis) }.joined(separator: ", ")))"
        }
        .joined(separator: " and")
        guard let answer else {
            let sorted = SweepAnswer.ordered(axis.values, .minimize)
            let range =
                sorted.count == 1
                ? value(sorted[0], of: axis)
                : "\(value(sorted[0], of: axis)) to \(value(sorted[sorted.count - 1], of: axis))"
            return partial + "no \(name) tried (\(range)) meets every goal \(seeds)\(atEvery)"
        }
        var decided = ""
        if !others.isEmpty {
            let place = zip(plan.axes, answer.values).enumerated().filter { $0.offset != axisIndex }
                .map { "\(keyName($0.element.0.key)) \(value($0.element.1, of: $0.element.0))" }
            decided = "decided at " + place.joined(separator: ", ")
        }
        let shown = figures(results, answer, prefix: decided)
        return partial
            + "\(word) \(name) meeting every goal \(seeds)\(atEvery): \(value(answer.values[axisIndex], of: axis))\(shown)"
    }

    /// ` (wait p95 8m12s, 95 % interval 7m58s–8m25s; shop peak 410 requests/s)`: the first
    /// goal's figure (the wait p95 without goals) and the shop's peak, where measured.
    static func figures(_ results: SweepResults, _ answer: SweepAnswer, prefix: String = "") -> String {
        let plan = results.plan
        var parts: [String] = []
        let headline = plan.goals.first.map { SweepMetric(threshold: $0) } ?? SweepMetric.waitP95
        if let index = plan.metrics.firstIndex(where: { $0.column == headline.column }),
            let interval = results.interval(point: answer.point, metric: index)
        {
            var text = "\(metricName(headline)) \(figure(interval.mean, headline.unit))"
            if let cap = results.cap(point: answer.point, metric: index) {
                // A lower bound: no interval around it means anything.
                text = "\(metricName(headline)) ≥ \(figure(Double(cap.milliseconds), headline.unit)) (\(cap.words))"
            } else if let spread = interval.spread({ figure($0, headline.unit) }) {
                text += ", " + spread
            }
            parts.append(text)
        }
        if let index = plan.metrics.firstIndex(where: { $0.source == .shopPeak }),
            let interval = results.interval(point: answer.point, metric: index)
        {
            parts.append("shop peak \(figure(interval.mean, .perSecond))")
        }
        let inside = (prefix.isEmpty ? "" : prefix + (parts.isEmpty ? "" : ": ")) + parts.joined(separator: "; ")
        return inside.isEmpty ? "" : " (\(inside))"
    }
}
