import Foundation
import QueueClientCore
import Synchronization

/// What one run of a point (one seed) amounted to: its figures, in the plan's metric order,
/// and whether it met each goal.
package struct SweepRunResult: Sendable, Equatable {
    package var point: Int
    package var seedIndex: Int
    package var values: [Double?]
    /// Per goal, in the plan's order.
    package var goalsMet: [Bool]
    package var visitors: Int

    package var meetsEveryGoal: Bool { goalsMet.allSatisfy { $0 } }
}

/// Runs every point × seed of a plan on the virtual clock, `jobs` at a time, in this process:
/// a virtual run is a value on its own thread (its engine, its room, its recorder, its stop
/// check), with no global state, so runs side by side do not meet. Each run keeps its figures
/// only (`Recorder(figuresOnlyFor:)`) unless `keepPointsDirectory` asks for report folders.
///
/// The runs are handed out in grid order from one counter; each result lands in its own
/// slot, so the results do not depend on which thread finished first.
package final class SweepRunner: Sendable {
    package let plan: SweepPlan
    package let jobs: Int
    package let stopSignal: RunStopSignal
    /// `--keep-points`: each run writes its full report folder under this directory.
    package let keepPointsDirectory: String?
    package let maxMemory: MemoryBudget?

    private let state = Mutex(State())

    /// At least as many runs in flight as usable cores: each run's rows are recorded on its
    /// engine's thread, as a writer thread per run would only take turns with the engines.
    private var everyCoreRunsAPoint: Bool {
        let runsInFlight = min(jobs, plan.runCount)
        return runsInFlight >= (ProcessCPUTime.usableCores() ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    private struct State {
        var next = 0
        var results: [SweepRunResult?] = []
        var finished = 0
        var failure: (any Error)?
    }

    package init(
        plan: SweepPlan, jobs: Int, stopSignal: RunStopSignal, keepPointsDirectory: String? = nil,
        maxMemory: MemoryBudget? = nil
    ) {
        self.plan = plan
        self.jobs = max(1, jobs)
        self.stopSignal = stopSignal
        self.keepPointsDirectory = keepPointsDirectory
        self.maxMemory = maxMemory
        state.withLock { $0.results = Array(repeating: nil, count: plan.runCount) }
    }

    /// Runs finished so far.
    package var finishedCount: Int { state.withLock { $0.finished } }

    /// Runs every run (or until the stop signal), blocking the calling thread; returns the
    /// results by run number (`point × seeds + seed`), nil for runs that did not finish.
    /// Throws the first error a run threw (the plan was checked, so this is unexpected).
    package func run() throws -> [SweepRunResult?] {
        let workers = (0..<min(jobs, max(1, plan.runCount))).map { number in
            WorkerThread(name: "queuesim-sweep-\(number)") { [self] in work() }
        }
        for worker in workers { worker.join() }
        return try state.withLock { state in
            if let failure = state.failure { throw SweepRunFailure(underlying: failure) }
            return state.results
        }
    }

    private func work() {
        while stopSignal.reason == nil {
            let number: Int? = state.withLock { state in
                guard state.failure == nil, state.next < plan.runCount else { return nil }
                defer { state.next += 1 }
                return state.next
            }
            guard let number else { return }
            do {
                let result = try runOne(number)
                state.withLock { state in
                    // A run the stop signal cut short is not a finished point.
                    if let result {
                        state.results[number] = result
                        state.finished += 1
                    }
                }
            } catch {
                state.withLock { if $0.failure == nil { $0.failure = error } }
                return
            }
        }
    }

    /// One run; nil when the stop signal interrupted it.
    func runOne(_ number: Int) throws -> SweepRunResult? {
        let (pointIndex, seedIndex) = number.quotientAndRemainder(dividingBy: plan.seeds.count)
        let point = plan.points[pointIndex]
        let directory = keepPointsDirectory.map { Self.pointDirectory($0, point: point, seedIndex: seedIndex) }
        let options = plan.runOptions(
            seed: plan.seeds[seedIndex], reportsDirectory: directory, maxMemory: maxMemory)
        let prepared = try PreparedRun(scenario: point.scenario, options: options)
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: stopSignal)
        runner.keepsFiguresOnly = directory == nil
        runner.recordsRowsOnTheEngineThread = everyCoreRunsAPoint
        let report = try runner.execute()
        // A signal during the run may have cut it short: only runs that ended on their own count.
        if stopSignal.reason != nil { return nil }
        return SweepRunResult(
            point: pointIndex, seedIndex: seedIndex, values: plan.metrics.map { $0.value(in: report) },
            goalsMet: plan.goals.map { report.measurements.judge($0).passed }, visitors: report.visitorCount)
    }

    /// `DIR/points/003-seed-2`: the point's number in the grid and the seed's.
    package static func pointDirectory(_ directory: String, point: SweepPoint, seedIndex: Int) -> String {
        let number = String(format: "%03d", point.index + 1)
        return "\(directory)/points/\(number)-seed-\(seedIndex + 1)"
    }
}

package struct SweepRunFailure: Error, CustomStringConvertible {
    package var underlying: any Error
    package var description: String { "a run of the sweep failed: \(ErrorWording.plain(underlying))" }
}
