import Foundation

/// `sweep --check-theory`: every point's oracle (`TheoryOracle`) and its check against the
/// mean over the point's seeds (`TheoryCheck`), with sweep.csv's columns: `oracle_<figure>`
/// for each figure the theory gives, and `theory` (`pass`, `fail`, or empty where no oracle
/// applies or the point did not finish) on the point rows.
package struct SweepTheory: Sendable {
    package let oracles: [TheoryOracle?]
    package let checks: [TheoryCheck?]
    /// The plan's figures the theory gives, by their index in `plan.metrics`.
    package let judged: [Int]
    /// The turn rule every point was held to instead of its scenario's own
    /// (`--theory-turns`), or nil: each point's own rule.
    package let turns: AbandonedTurns?
    let plan: SweepPlan

    /// `turns` holds every point to that rule's oracle instead of its scenario's own
    /// (`sweep --theory-turns`: checked against the other rule, a sweep with patience shows the
    /// check bite).
    package init(results: SweepResults, turns: AbandonedTurns? = nil) {
        let plan = results.plan
        self.plan = plan
        self.turns = turns
        let oracles = plan.points.map { TheoryOracle(scenario: $0.scenario, turns: turns) }
        self.oracles = oracles
        judged = plan.metrics.indices.filter { index in
            let metric = plan.metrics[index]
            guard metric.unit == .share || TheoryCheck.isWait(metric) else { return false }
            return oracles.contains { $0?.value(of: metric) != nil }
        }
        let metrics = plan.metrics
        checks = plan.points.map { point in
            guard let oracle = oracles[point.index], results.isComplete(point: point.index) else { return nil }
            let means = metrics.indices.map { results.interval(point: point.index, metric: $0)?.mean }
            return TheoryCheck(
                metrics: metrics, means: means, oracle: oracle,
                maxWaitMs: point.scenario.client.maxWait.secondsDouble * 1000)
        }
    }

    /// Points whose figures are off their oracle's.
    package var failingPoints: [Int] { checks.indices.filter { checks[$0]?.passed == false } }

    package var passed: Bool { failingPoints.isEmpty }

    /// sweep.csv's extra header cells.
    package var header: [String] { judged.map { "oracle_" + plan.metrics[$0].column } + ["theory"] }

    /// sweep.csv's extra cells of a row of `point` (`verdict`: the point row, not a seed's).
    package func cells(point: Int, verdict: Bool) -> [String] {
        let values = judged.map { index in
            oracles[point]?.value(of: plan.metrics[index]).map { SweepText.file($0, plan.metrics[index].unit) } ?? ""
        }
        let theory = verdict ? checks[point].map { $0.passed ? "pass" : "fail" } ?? "" : ""
        return values + [theory]
    }

    /// What the screen says: one line per point off its theory, or that every point held.
    package var lines: [String] {
        let label = turns.map { "theory check against \($0.rawValue) turns" } ?? "theory check"
        let applied = checks.count { $0 != nil }
        guard applied > 0 else {
            return ["\(label): no point has an oracle (a plain queue room without faults or run.duration)"]
        }
        guard !passed else {
            return [
                "\(label): \(applied) point\(applied == 1 ? "" : "s") within 2 points (shares) and 5 % (waits) of the theory"
            ]
        }
        return failingPoints.map { index in
            let point = plan.points[index]
            let values = zip(plan.axes, point.values).map { "\($0.key)=\($1.text)" }.joined(separator: ", ")
            let off = checks[index]!.figures.filter { !$0.passed }.map(\.sentence).joined(separator: "; ")
            return "\(label): point \(index + 1)\(values.isEmpty ? "" : " (\(values))") fails: \(off)"
        }
    }

    /// sweep.json's `theory` of a point: the rule it was held to, its verdict (null where no
    /// oracle applies or the point did not finish) and, per figure the theory gives, the
    /// oracle's value (as sweep.csv's `oracle_<figure>`) and the point's mean less it (both
    /// capped at maxWait first, as judged; null where the point has no mean), in the figure's
    /// unit as `figures` writes it.
    package func json(point: Int, number: (Double) -> Any) -> [String: Any] {
        var figures: [String: Any] = [:]
        for index in judged {
            let metric = plan.metrics[index]
            guard let oracle = oracles[point]?.value(of: metric) else { continue }
            let judgedFigure = checks[point]?.figures.first { $0.column == metric.column }
            figures[metric.column] = [
                "oracle": number(oracle),
                "difference": judgedFigure.map { number($0.measured - $0.oracle) } ?? NSNull(),
                "pass": judgedFigure.map { $0.passed as Any } ?? NSNull(),
            ]
        }
        let rule = turns ?? plan.points[point].scenario.waitingRoom?.abandonedTurns
        return [
            "turns": rule.map { $0.rawValue as Any } ?? NSNull(),
            "verdict": checks[point].map { ($0.passed ? "pass" : "fail") as Any } ?? NSNull(),
            "figures": figures,
        ]
    }
}
