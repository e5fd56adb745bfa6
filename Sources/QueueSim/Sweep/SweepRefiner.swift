import Foundation
import QueueClientCore

/// After the grid: bisection of the minimized (maximized) key between the last grid value
/// that failed and the grid's answer, each probe run with every seed; then the margin at the
/// first passing value (`SweepMargin`), and the fluid model's value of the key
/// (`SweepFluidAnswer`).
///
/// A probe runs only the combinations of the other varied keys that failed at the last
/// failing grid value: the others passed there, and passing is taken as monotone between two
/// neighbouring grid values, as bisection itself takes it. So a probe costs (failing
/// combinations × seeds) runs, and the whole refinement at most
/// `SweepBisection.mostProbes` of those plus `SweepMargin.mostProbes` × seeds.
package struct SweepRefiner {
    package var plan: SweepPlan
    package var loader: SweepPointLoader
    package var precision: SweepPrecision
    package var jobs: Int
    package var stopSignal: RunStopSignal
    package var budget: MemoryBudget
    /// Told of each step (`9,650/min: fails a goal`), for the command's stderr.
    package var report: @Sendable (String) -> Void = { _ in }

    package init(
        plan: SweepPlan, loader: SweepPointLoader, precision: SweepPrecision, jobs: Int, stopSignal: RunStopSignal,
        budget: MemoryBudget
    ) {
        self.plan = plan
        self.loader = loader
        self.precision = precision
        self.jobs = jobs
        self.stopSignal = stopSignal
        self.budget = budget
    }

    private var runner: SweepProbeRunner {
        SweepProbeRunner(plan: plan, loader: loader, jobs: jobs, stopSignal: stopSignal, budget: budget)
    }

    /// Nil without an objective, or when the grid found no answer.
    package func refine(results: SweepResults, answer: SweepAnswer) -> SweepRefinedAnswer? {
        guard let objective = plan.objective, let axis = plan.axes.firstIndex(where: { $0.key == objective.key })
        else { return nil }
        let ordered = SweepAnswer.ordered(plan.axes[axis].values, objective.direction)
        let grid = answer.values[axis]
        let position = ordered.firstIndex(of: grid) ?? 0
        let lastFailing = position > 0 ? ordered[position - 1] : nil
        let step = SweepPrecision.naturalStep(of: plan.axes[axis].values)
        // The combinations that failed at the last failing value: only they can fail in between.
        let failingPoints = plan.points.filter {
            $0.values[axis] == lastFailing && !results.meetsEveryGoal(point: $0.index)
        }
        let deciding =
            failingPoints.first { SweepAnswer.others(of: $0, excluding: axis) == others(answer, axis) }
            ?? failingPoints.first ?? plan.points[answer.point]
        // The deciding combination at the grid's answer: its figures, crowd and fluid model.
        let decidingOthers = SweepAnswer.others(of: deciding, excluding: axis)
        let atGrid =
            plan.points.first {
                $0.values[axis] == grid && SweepAnswer.others(of: $0, excluding: axis) == decidingOthers
            }
            ?? plan.points[answer.point]
        let headlineIndex = headlineMetric()
        var refined = SweepRefinedAnswer(
            key: objective.key, direction: objective.direction, grid: grid, failing: lastFailing, passing: grid,
            precision: precision, precisionSize: precision.base(at: grid.magnitude, step: step), probes: [],
            headline: headlineIndex.map { plan.metrics[$0] },
            headlineInterval: headlineIndex.flatMap { results.interval(point: atGrid.index, metric: $0) },
            baseScale: atGrid.scenario.arrivals.scale, margin: nil, fluid: nil, fluidGoal: nil,
            notes: [])
        if let lastFailing {
            bisect(&refined, from: lastFailing, axis: axis, step: step, points: failingPoints, deciding: deciding)
        }
        let decidingValues = replacing(deciding.values, at: axis, with: refined.passing)
        if objective.key == "arrivals.scale" {
            refined.notes.append("no margin: the key is the crowd itself")
        } else if stopSignal.reason == nil {
            measureMargin(&refined, at: decidingValues)
        }
        if let fluid = SweepFluidAnswer.find(
            key: objective.key, goals: plan.goals, scenario: atGrid.scenario,
            keyValue: grid.magnitude)
        {
            refined.fluid = Self.fluidValue(fluid.size, like: grid)
            refined.fluidGoal = fluid.goal
        }
        return refined
    }

    private func bisect(
        _ refined: inout SweepRefinedAnswer, from lastFailing: SweepValue, axis: Int, step: Double,
        points: [SweepPoint], deciding: SweepPoint
    ) {
        let size = refined.precisionSize
        let most = SweepBisection.mostProbes(
            width: abs(refined.grid.magnitude - lastFailing.magnitude), precision: size)
        guard most > 0, !points.isEmpty else { return }
        report(
            "refining \(SweepText.keyName(refined.key)) between \(SweepText.value(lastFailing)) and \(SweepText.value(refined.grid)) to within \(refined.precision.text): at most \(most) probe(s) × \(points.count * plan.seeds.count) run(s)"
        )
        var passingRuns: [SweepRunResult]?
        do {
            let outcome = try SweepBisection.refine(
                failing: lastFailing.magnitude, passing: refined.grid.magnitude, precision: size, step: step
            ) { probeSize -> Bool? in
                let value = SweepPrecision.value(probeSize, like: refined.grid)
                let probe = points.map {
                    (values: replacing($0.values, at: axis, with: value), extra: [ScenarioOverride]())
                }
                guard let runs = try runner.run(probe) else { return nil }
                let passed = runs.allSatisfy { $0.allSatisfy(\.meetsEveryGoal) }
                refined.probes.append(.init(value: value, passed: passed, runs: runs.count * plan.seeds.count))
                if passed, let index = points.firstIndex(where: { $0.index == deciding.index }) {
                    passingRuns = runs[index]
                }
                report("\(SweepText.value(value)): \(passed ? "meets every goal" : "fails a goal")")
                return passed
            }
            refined.failing = refined.probes.last { !$0.passed }?.value ?? lastFailing
            refined.passing = refined.probes.last { $0.passed }?.value ?? refined.grid
            if outcome.stopped { refined.notes.append("bisection interrupted") }
        } catch {
            refined.notes.append("bisection stopped: \(ErrorWording.plain(error))")
        }
        if let passingRuns, let index = headlineMetric() {
            refined.headlineInterval = SweepInterval(passingRuns.compactMap { $0.values[index] })
        }
    }

    private func measureMargin(_ refined: inout SweepRefinedAnswer, at values: [SweepValue]) {
        let baseScale = refined.baseScale
        do {
            let outcome = try SweepMargin.find { factor -> Bool? in
                let scale = SweepUnit.decimalText(baseScale * factor)
                let extra = [ScenarioOverride(path: "arrivals.scale", value: scale, origin: "the sweep's margin")]
                guard let runs = try runner.run([(values: values, extra: extra)]) else { return nil }
                let passed = runs[0].allSatisfy(\.meetsEveryGoal)
                report(
                    "a crowd \(scale)× at \(SweepText.value(refined.passing)): \(passed ? "meets every goal" : "fails a goal")"
                )
                return passed
            }
            refined.margin = outcome
        } catch {
            refined.notes.append("the margin was not measured: \(ErrorWording.plain(error))")
        }
    }

    /// The first goal's metric (the wait p95 without goals), as the sentence names it.
    private func headlineMetric() -> Int? {
        let headline = plan.goals.first.map { SweepMetric(threshold: $0) } ?? SweepMetric.waitP95
        return plan.metrics.firstIndex { $0.column == headline.column }
    }

    private func others(_ answer: SweepAnswer, _ axis: Int) -> [SweepValue] {
        answer.values.enumerated().filter { $0.offset != axis }.map(\.element)
    }

    private func replacing(_ values: [SweepValue], at axis: Int, with value: SweepValue) -> [SweepValue] {
        var values = values
        values[axis] = value
        return values
    }

    /// The fluid answer written as the key's values are, to a tenth of their unit (`9500/min`,
    /// `142.5/min`).
    static func fluidValue(_ size: Double, like example: SweepValue) -> SweepValue {
        let unit = SweepUnit.parse(example.text)?.unit ?? .plain
        let number = ((size / unit.scale) * 10).rounded() / 10
        return SweepValue(text: unit.write(number), magnitude: number * unit.scale)
    }
}
