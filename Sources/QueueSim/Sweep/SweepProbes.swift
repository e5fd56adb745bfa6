import Foundation
import QueueClientCore

/// Loads a point's scenario at values the grid did not hold (a bisection probe, a larger
/// crowd), exactly as `SweepPlan` loads its points: the file's bytes with `--set` first, then
/// each varied key's value as an override.
package struct SweepPointLoader: Sendable {
    package var file: String
    package var bytes: [UInt8]
    package var overrides: [ScenarioOverride]
    package var environment: [String: String]

    package init(
        file: String, bytes: [UInt8], overrides: [ScenarioOverride],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.file = file
        self.bytes = bytes
        self.overrides = overrides
        self.environment = environment
    }

    /// The scenario at `values` (one per varied key, in the plan's order), with `extra`
    /// overrides last (they win over a varied key of the same path).
    func scenario(plan: SweepPlan, values: [SweepValue], extra: [ScenarioOverride] = []) throws -> Scenario {
        let extraPaths = Set(extra.map(\.path))
        let pointOverrides = zip(plan.axes, values).filter { !extraPaths.contains($0.0.key) }
            .map { SweepPlan.override(axis: $0, value: $1) }
        do {
            return try ScenarioLoader.load(
                bytes: bytes, path: file, overrides: overrides + pointOverrides + extra, environment: environment)
        } catch {
            throw SweepProbeProblem(message: error.diagnostics.map(\.description).joined(separator: "; "))
        }
    }
}

package struct SweepProbeProblem: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// Runs a handful of points the grid did not hold, each with every seed, through the grid's
/// own `SweepRunner`: on the virtual clock, as many at a time as the memory budget lets the
/// largest of them run (`SweepMemory.fit`, so a larger crowd runs fewer at once, or is said
/// not to fit).
struct SweepProbeRunner {
    var plan: SweepPlan
    var loader: SweepPointLoader
    var jobs: Int
    var stopSignal: RunStopSignal
    var budget: MemoryBudget

    /// Runs every point of `points` (values per key, extra overrides) with every seed. Returns
    /// each point's runs, or nil when the stop signal cut a run short.
    func run(_ points: [(values: [SweepValue], extra: [ScenarioOverride])]) throws -> [[SweepRunResult]]? {
        var probePlan = plan
        probePlan.points = try points.enumerated().map { index, point in
            SweepPoint(
                index: index, values: point.values,
                scenario: try loader.scenario(plan: plan, values: point.values, extra: point.extra))
        }
        let fitted: SweepMemory.Fit
        do {
            fitted = try SweepMemory.fit(plan: probePlan, jobs: jobs, budget: budget)
        } catch {
            throw SweepProbeProblem(message: error.description)
        }
        let runner = SweepRunner(plan: probePlan, jobs: fitted.jobs, stopSignal: stopSignal, maxMemory: budget)
        let runs = try runner.run()
        guard stopSignal.reason == nil, runs.allSatisfy({ $0 != nil }) else { return nil }
        let seeds = plan.seeds.count
        return (0..<points.count).map { point in runs[(point * seeds)..<((point + 1) * seeds)].compactMap { $0 } }
    }
}
