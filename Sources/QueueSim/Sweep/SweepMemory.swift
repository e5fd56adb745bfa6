import Foundation
import QueueClientCore

/// The memory preflight of a sweep: every point is prepared as its run will be (the same
/// checks as `run`'s, so a point that cannot run is exit 2 before anything runs), and the
/// largest point's estimate is multiplied by the runs in flight. Jobs are lowered to fit the
/// budget, with a note; a sweep whose single run does not fit is refused.
///
/// A point's estimate counts the visitors who start together at the full virtual figure
/// (`RunMemoryEstimate.startingTogether`): sweeps are mostly bursts, and a lean burst peaked
/// 60 % above the lean figure (docs/sweep.md, "Memory").
package enum SweepMemory {
    package struct Fit: Sendable, Equatable {
        package var jobs: Int
        /// Said on standard error when the jobs were lowered.
        package var note: String?
        /// The largest point's estimate, in bytes.
        package var perRun: Int
    }

    package static func fit(plan: SweepPlan, jobs wanted: Int, budget: MemoryBudget) throws(SweepPlan.Problem) -> Fit {
        var largest = 0
        for point in plan.points {
            let options = plan.runOptions(seed: plan.seeds[0], reportsDirectory: nil, maxMemory: budget)
            do {
                let prepared = try PreparedRun(scenario: point.scenario, options: options)
                largest = max(largest, try estimate(of: prepared).bytes)
            } catch {
                let failure = error as? PreflightFailure
                let named = zip(plan.axes, point.values).map { "\($0.key)=\($1.text)" }.joined(separator: ", ")
                throw SweepPlan.Problem(
                    file: plan.file, at: failure?.position,
                    "at the point \(named): \(ErrorWording.plain(failure?.reason ?? error))")
            }
        }
        let jobs = max(1, min(wanted, plan.runCount))
        let base = RunMemoryEstimate.baseBytes
        let perRun = max(1, largest - base)
        let fitting = max(0, (budget.bytes - base) / perRun)
        if fitting >= jobs { return Fit(jobs: jobs, note: nil, perRun: largest) }
        guard fitting >= 1 else {
            throw SweepPlan.Problem(
                file: plan.file, at: nil,
                "one run of the largest point needs about \(MemoryBudget.describe(largest)), more than the budget of \(MemoryBudget.describe(budget.bytes)) (\(budget.origin))"
            )
        }
        let note =
            "running \(fitting) at a time instead of \(jobs): each run of the largest point needs about \(MemoryBudget.describe(largest)), and \(jobs) at once would pass the budget of \(MemoryBudget.describe(budget.bytes)) (\(budget.origin))"
        return Fit(jobs: fitting, note: note, perRun: largest)
    }

    /// A point's run estimate with its visitors who start together counted in.
    /// (`PreparedRun` counts them in for `run` too: one estimate for both.)
    package static func estimate(of prepared: PreparedRun) throws -> RunMemoryEstimate {
        prepared.memoryEstimate
    }

    /// What `jobs` runs of the largest point take together: the base once, each run's own share.
    package static func bytes(perRun: Int, jobs: Int) -> Int {
        RunMemoryEstimate.baseBytes + max(1, jobs) * max(1, perRun - RunMemoryEstimate.baseBytes)
    }
}
