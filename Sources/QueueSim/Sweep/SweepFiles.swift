import Foundation
import QueueClientCore

/// sweep.csv and sweep.json (docs/sweep.md, "Files"): the same bytes for the same scenario,
/// grid and seeds, whichever thread ran which point.
package enum SweepFiles {
    package static let csvFile = "sweep.csv"
    package static let jsonFile = "sweep.json"
    package static let pageFile = "sweep.html"

    /// The fluid model's figures of each point (nil where it does not apply).
    package static func fluid(_ plan: SweepPlan) -> SweepFluid {
        SweepFluid(
            waitP95: plan.points.map { point in
                FluidQueue(scenario: point.scenario)?.waitPercentile(0.95).map { $0 * 1000 }
            },
            abandonedShare: plan.points.map { FluidQueue.abandonedShare(scenario: $0.scenario) })
    }

    /// A row per run (`row` = `seed`), then a row per point (`row` = `point`) with each
    /// figure's mean over the finished seeds and its 95 % Student t interval in the
    /// `_ci95_low`/`_ci95_high` columns.
    /// With `theory` (`--check-theory`), each row also has the oracle's figures and the point
    /// rows its verdict.
    package static func csv(_ results: SweepResults, fluid: SweepFluid, theory: SweepTheory? = nil) -> String {
        let plan = results.plan
        var header = ["row", "point"] + plan.axes.map(\.key) + ["seed", "seeds", "meets_goals", "visitors"]
        for metric in plan.metrics {
            header += [metric.column, metric.column + "_ci95_low", metric.column + "_ci95_high"]
        }
        // `capped`: a wait figure of the row sits at client.maxWait (or run.duration), so it is
        // a lower bound and no goal `<` on it was met.
        header += ["capped", "fluid_wait_p95_ms", "fluid_abandoned_share"]
        header += theory?.header ?? []
        var lines = [header.map(field).joined(separator: ",")]
        for point in plan.points {
            for (seedIndex, run) in results.runs(ofPoint: point.index).enumerated() {
                guard let run else { continue }
                var cells = ["seed", String(point.index + 1)] + point.values.map(\.text)
                cells += [String(plan.seeds[seedIndex]), "", run.meetsEveryGoal ? "yes" : "no", String(run.visitors)]
                for (index, metric) in plan.metrics.enumerated() {
                    cells += [run.values[index].map { SweepText.file($0, metric.unit) } ?? "", "", ""]
                }
                cells.append(results.cappedColumns(of: run).isEmpty ? "no" : "yes")
                cells += fluid.cells(point: point.index)
                cells += theory?.cells(point: point.index, verdict: false) ?? []
                lines.append(cells.map(field).joined(separator: ","))
            }
        }
        for point in plan.points {
            let runs = results.runs(ofPoint: point.index).compactMap { $0 }
            guard !runs.isEmpty else { continue }
            var cells = ["point", String(point.index + 1)] + point.values.map(\.text)
            cells += ["", String(runs.count), results.meetsEveryGoal(point: point.index) ? "yes" : "no"]
            cells.append(SweepText.file(Double(runs.map(\.visitors).reduce(0, +)) / Double(runs.count), .count))
            for (index, metric) in plan.metrics.enumerated() {
                let interval = results.interval(point: point.index, metric: index)
                cells += [
                    interval.map { SweepText.file($0.mean, metric.unit) } ?? "",
                    interval?.low.map { SweepText.file($0, metric.unit) } ?? "",
                    interval?.high.map { SweepText.file($0, metric.unit) } ?? "",
                ]
            }
            cells.append(results.cappedColumns(point: point.index).isEmpty ? "no" : "yes")
            cells += fluid.cells(point: point.index)
            cells += theory?.cells(point: point.index, verdict: true) ?? []
            lines.append(cells.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// sweep.json: keys sorted, `null` where nothing was measured; `answer` maps each varied
    /// key to its value at the answer point as the scenario writes it, or is null.
    package static func json(
        _ results: SweepResults, answer: SweepAnswer?, sentence: String, exitCode: Int32, fluid: SweepFluid,
        refined: [String: Any] = SweepRefinedAnswer.absentJSON, theory: SweepTheory? = nil
    ) throws -> String {
        let plan = results.plan
        func values(_ values: [SweepValue], keys: [String]) -> [String: Any] {
            Dictionary(uniqueKeysWithValues: zip(keys, values.map(\.text)))
        }
        let keys = plan.axes.map(\.key)
        var points: [[String: Any]] = []
        for point in plan.points {
            let runs = results.runs(ofPoint: point.index)
            var figures: [String: Any] = [:]
            for (index, metric) in plan.metrics.enumerated() {
                let interval = results.interval(point: point.index, metric: index)
                figures[metric.column] = [
                    "mean": interval.map { number($0.mean) } ?? NSNull(),
                    "ci95_low": interval?.low.map(number) ?? NSNull(),
                    "ci95_high": interval?.high.map(number) ?? NSNull(),
                    "by_seed": runs.map { run -> Any in run?.values[index].map(number) ?? NSNull() },
                    "capped_by": results.cap(point: point.index, metric: index).map(\.source) ?? NSNull(),
                ]
            }
            var entry: [String: Any] = [
                "point": point.index + 1,
                "values": values(point.values, keys: keys),
                "complete": results.isComplete(point: point.index),
                "meets_goals": results.meetsEveryGoal(point: point.index),
                "meets_goals_by_seed": runs.map { run -> Any in run.map { $0.meetsEveryGoal } ?? NSNull() },
                "capped": results.cappedColumns(point: point.index),
                "figures": figures,
                "fluid_wait_p95_ms": fluid.waitP95[point.index].map(number) ?? NSNull(),
                "fluid_abandoned_share": fluid.abandonedShare[point.index].map(number) ?? NSNull(),
            ]
            // --check-theory: the oracle's figures and the differences sweep.csv's columns hold.
            if let theory { entry["theory"] = theory.json(point: point.index, number: number) }
            points.append(entry)
        }
        let objectiveAxis = plan.objective.flatMap { objective in keys.firstIndex(of: objective.key) }
        let combinations = SweepAnswer.perCombination(in: results).map { combination -> [String: Any] in
            let otherKeys = keys.enumerated().filter { $0.offset != objectiveAxis }.map(\.element)
            return [
                "values": values(combination.others, keys: otherKeys),
                "answer": combination.value.map(\.text) ?? NSNull(),
            ]
        }
        var document: [String: Any] = [
            "scenario": plan.scenarioName,
            "scenario_file": plan.file,
            "queuesim_version": QueueSimVersion.current,
            "keys": keys,
            "seeds": plan.seeds.map { NSNumber(value: $0) },
            "goals": plan.goals.map(\.source),
            "thresholds": plan.thresholds.map(\.source),
            "objective": plan.objective.map { ["direction": $0.direction.rawValue, "key": $0.key] } ?? NSNull(),
            "answer": answer.map { values($0.values, keys: keys) } ?? NSNull(),
            "answer_point": answer.map { $0.point + 1 } ?? NSNull(),
            "answer_sentence": sentence,
            "answers_by_combination": combinations,
            "interval": "95% Student t over the seeds of a point: mean ± t(0.975, n−1)·s/√n",
            "runs": plan.runCount,
            "finished_runs": results.finishedRuns,
            "complete": results.isComplete,
            "exit_code": Int(exitCode),
            "metrics": plan.metrics.map(\.column),
            "points": points,
        ]
        if let theory {
            document["theory_check"] = [
                "turns": theory.turns.map { $0.rawValue as Any } ?? "scenario",
                "share_tolerance": TheoryCheck.shareTolerance,
                "wait_tolerance": TheoryCheck.waitTolerance,
                "passed": theory.passed,
                "failing_points": theory.failingPoints.map { $0 + 1 },
            ]
        }
        // The refined answer's fields (`answer_bracket`, `answer_margin`, `answer_fluid`, …).
        document.merge(refined) { kept, _ in kept }
        let data = try JSONSerialization.data(
            withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A figure rounded as in sweep.csv, so the two files agree.
    private static func number(_ value: Double) -> Any {
        let rounded = (value * 1e6).rounded() / 1e6
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return Int64(rounded) }
        return rounded
    }
}

/// The fluid model's figures beside a sweep's simulated ones, a value per point: the wait p95
/// (`FluidQueue.waitPercentile`, milliseconds) where visitors stay, and the share who give up
/// (`FluidQueue.abandonedShare`) for a burst with exponential patience.
package struct SweepFluid: Sendable {
    package var waitP95: [Double?]
    package var abandonedShare: [Double?]

    /// The model's figure for `metric` at each point; nil for a metric it does not predict.
    func figures(for metric: SweepMetric) -> [Double?]? {
        if metric == SweepMetric.waitP95 { return waitP95 }
        if metric == SweepMetric.abandonedShare { return abandonedShare }
        return nil
    }

    /// sweep.csv's two cells, as the file writes the figures.
    func cells(point: Int) -> [String] {
        [
            waitP95[point].map { SweepText.file($0, .milliseconds) } ?? "",
            abandonedShare[point].map { SweepText.file($0, .share) } ?? "",
        ]
    }
}
