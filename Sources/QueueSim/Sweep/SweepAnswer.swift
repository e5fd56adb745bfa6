import Foundation

/// A sweep's results by point: each point's runs, its figures over seeds, and whether it
/// met every goal in every seed.
package struct SweepResults: Sendable {
    package var plan: SweepPlan
    /// By run number (`point × seeds + seed`); nil for a run that did not finish (SIGINT).
    package var runs: [SweepRunResult?]

    package init(plan: SweepPlan, runs: [SweepRunResult?]) {
        self.plan = plan
        self.runs = runs
    }

    package func runs(ofPoint point: Int) -> [SweepRunResult?] {
        let seeds = plan.seeds.count
        return Array(runs[(point * seeds)..<((point + 1) * seeds)])
    }

    /// Every seed of the point finished.
    package func isComplete(point: Int) -> Bool { runs(ofPoint: point).allSatisfy { $0 != nil } }

    /// Every seed of the point finished and met every goal.
    package func meetsEveryGoal(point: Int) -> Bool {
        runs(ofPoint: point).allSatisfy { $0?.meetsEveryGoal ?? false }
    }

    /// The mean and 95 % interval of metric `metric` over the point's finished seeds.
    package func interval(point: Int, metric: Int) -> SweepInterval? {
        SweepInterval(runs(ofPoint: point).compactMap { $0?.values[metric] })
    }

    package var finishedRuns: Int { runs.count(where: { $0 != nil }) }
    package var isComplete: Bool { finishedRuns == runs.count }
}

/// The sweep's answer (docs/sweep.md, "The answer"):
///
/// - with `minimize: KEY` (`maximize: KEY`), the lowest (highest) value of KEY at which every
///   point meets every goal in every seed, *whatever the other varied keys are*: a launch team
///   that varies `arrivals.scale: [1, 1.5, 2]` beside the outflow asks for the outflow that is
///   safe for each crowd it thinks possible, not for the one that is safe for the smallest;
///   the other keys' values in the answer are those of the point that decided it (the
///   combination that needs the most), and `perCombination` gives each combination's own;
/// - without either, the first point in grid order that meets every goal in every seed.
///
/// A point with a seed that did not finish (SIGINT) meets nothing.
package struct SweepAnswer: Sendable, Equatable {
    /// The point whose values the answer gives.
    package var point: Int
    /// Per varied key, in the plan's key order.
    package var values: [SweepValue]

    /// For each combination of the other keys (in grid order): its values and its own answer.
    package struct Combination: Sendable, Equatable {
        package var others: [SweepValue]
        package var value: SweepValue?
    }

    package static func find(in results: SweepResults) -> SweepAnswer? {
        let plan = results.plan
        guard let objective = plan.objective, let axis = plan.axes.firstIndex(where: { $0.key == objective.key }) else {
            return plan.points.first { results.meetsEveryGoal(point: $0.index) }.map {
                SweepAnswer(point: $0.index, values: $0.values)
            }
        }
        let combinations = perCombination(in: results)
        for value in ordered(plan.axes[axis].values, objective.direction) {
            let column = plan.points.filter { $0.values[axis] == value }
            guard column.allSatisfy({ results.meetsEveryGoal(point: $0.index) }) else { continue }
            // The deciding point: the combination whose own answer is the most demanding.
            let ranks = ordered(plan.axes[axis].values, objective.direction)
            func rank(_ point: SweepPoint) -> Int {
                let others = Self.others(of: point, excluding: axis)
                let own = combinations.first { $0.others == others }?.value
                return own.flatMap { ranks.firstIndex(of: $0) } ?? -1
            }
            let deciding = column.max { rank($0) < rank($1) } ?? column[0]
            return SweepAnswer(point: deciding.index, values: deciding.values)
        }
        return nil
    }

    /// Each combination of the other varied keys with the lowest (highest) value of the
    /// objective key that meets every goal in every seed there; empty without an objective.
    package static func perCombination(in results: SweepResults) -> [Combination] {
        let plan = results.plan
        guard let objective = plan.objective, let axis = plan.axes.firstIndex(where: { $0.key == objective.key }) else {
            return []
        }
        var combinations: [Combination] = []
        for point in plan.points {
            let others = others(of: point, excluding: axis)
            if combinations.contains(where: { $0.others == others }) { continue }
            let column = plan.points.filter { Self.others(of: $0, excluding: axis) == others }
            let best = ordered(column.map { $0.values[axis] }, objective.direction).first { value in
                column.contains { $0.values[axis] == value && results.meetsEveryGoal(point: $0.index) }
            }
            combinations.append(Combination(others: others, value: best))
        }
        return combinations
    }

    static func others(of point: SweepPoint, excluding axis: Int) -> [SweepValue] {
        point.values.enumerated().filter { $0.offset != axis }.map(\.element)
    }

    static func ordered(_ values: [SweepValue], _ direction: SweepObjective.Direction) -> [SweepValue] {
        let sorted = values.enumerated().sorted {
            $0.element.magnitude != $1.element.magnitude
                ? $0.element.magnitude < $1.element.magnitude : $0.offset < $1.offset
        }.map(\.element)
        return direction == .minimize ? sorted : sorted.reversed()
    }
}
