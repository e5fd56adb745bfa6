import Foundation
import Synchronization

/// `queuesim calibrate`: finds the values of a scenario's unknowns (`CalibrationKnob`) that make
/// its virtual run closest to a real event's minutes, by the fidelity score of
/// `compare --real` (the mean of the series' MAPEs, lower is better).
///
/// The search: every candidate is the scenario with some `--set` values, run on the virtual
/// clock with the scenario's seed (the same seed for every candidate, so two candidates differ
/// by their values, not by luck). First a coarse grid over the first two unknowns of each group
/// together (patience and no-shows interact: both leave numbers unused) and the others one at
/// a time; then rounds of refinement, each trying every unknown's two neighbours of the best so
/// far, with a step that halves each round. Candidates run `jobs` at a time, each on its own
/// thread, its report folder written under `DIR/.candidates` and removed once scored.
package struct Calibrator: Sendable {
    package var scenarioPath: String
    package var real: RealStats
    package var knobs: [CalibrationKnob]
    package var baseOverrides: [ScenarioOverride]
    package var workDirectory: String
    package var jobs: Int
    package var rounds = 4
    package var stopSignal = RunStopSignal()

    package init(
        scenarioPath: String, real: RealStats, knobs: [CalibrationKnob], baseOverrides: [ScenarioOverride] = [],
        workDirectory: String, jobs: Int
    ) {
        self.scenarioPath = scenarioPath
        self.real = real
        self.knobs = knobs
        self.baseOverrides = baseOverrides
        self.workDirectory = workDirectory
        self.jobs = max(1, jobs)
    }

    /// One candidate: a value per knob (nil: the scenario's own).
    package typealias Candidate = [Double?]

    package struct Outcome: Sendable {
        package var best: [Double]
        package var scoreBefore: Double?
        package var scoreAfter: Double?
        /// Every candidate run and its score (nil: no minute scored).
        package var tried: [(values: [Double], score: Double?)]
        package var runs: Int
    }

    package func calibrate(progress: @Sendable (Int) -> Void = { _ in }) throws -> Outcome {
        var tried: [(values: [Double], score: Double?)] = []
        var scores: [[Double]: Double?] = [:]
        let before = try evaluate([Array(repeating: nil, count: knobs.count)]).first ?? nil
        var best = knobs.map { $0.original ?? 0 }
        var bestScore = Double.infinity
        func run(_ batch: [[Double]]) throws {
            let fresh = Array(Set(batch.filter { !scores.keys.contains($0) })).sorted {
                $0.lexicographicallyPrecedes($1)
            }
            let results = try evaluate(fresh.map { $0.map(Optional.some) })
            for (values, score) in zip(fresh, results) {
                scores[values] = score
                tried.append((values, score))
                if let score, score < bestScore {
                    bestScore = score
                    best = values
                }
            }
            progress(tried.count)
        }
        try run(coarseGrid())
        for round in 0..<rounds where stopSignal.reason == nil {
            for index in knobs.indices {
                try run(
                    knobs[index].neighbours(of: best[index], round: round).map { value in
                        var values = best
                        values[index] = value
                        return values
                    })
            }
        }
        return Outcome(
            best: best, scoreBefore: before, scoreAfter: bestScore.isFinite ? bestScore : nil, tried: tried,
            runs: tried.count + 1)
    }

    /// The first two unknowns of each group crossed, the others one at a time.
    func coarseGrid() -> [[Double]] {
        let start = knobs.map { $0.original ?? 0 }
        var grid: [[Double]] = []
        let groups = Dictionary(grouping: knobs.indices) { knobs[$0].key.split(separator: ".").dropFirst().first ?? "" }
        for indices in groups.values.map({ $0.sorted() }) {
            let crossed = Array(indices.prefix(2))
            var points: [[Double]] = [start]
            for index in crossed {
                points = points.flatMap { point in
                    knobs[index].coarse.map { value in
                        var copy = point
                        copy[index] = value
                        return copy
                    }
                }
            }
            grid += points
            for index in indices.dropFirst(2) {
                grid += knobs[index].coarse.map { value in
                    var copy = start
                    copy[index] = value
                    return copy
                }
            }
        }
        return grid
    }

    /// The scenario with the candidate's values as `--set` overrides.
    package func overrides(_ candidate: Candidate) -> [ScenarioOverride] {
        baseOverrides
            + zip(knobs, candidate).compactMap { knob, value in
                value.map { ScenarioOverride(path: knob.key, value: knob.text($0), origin: "calibrate") }
            }
    }

    /// Scores candidates `jobs` at a time; nil for a candidate the validator refused or whose
    /// run scored no minute.
    func evaluate(_ candidates: [Candidate]) throws -> [Double?] {
        let results = Mutex([Double?](repeating: nil, count: candidates.count))
        let next = Mutex(0)
        let failure = Mutex<(any Error)?>(nil)
        let workers = (0..<min(jobs, max(1, candidates.count))).map { number in
            WorkerThread(name: "queuesim-calibrate-\(number)") {
                while stopSignal.reason == nil {
                    let index: Int? = next.withLock { value in
                        guard value < candidates.count else { return nil }
                        defer { value += 1 }
                        return value
                    }
                    guard let index else { return }
                    do {
                        let score = try score(candidates[index], number: index)
                        results.withLock { $0[index] = score }
                    } catch {
                        failure.withLock { if $0 == nil { $0 = error } }
                        return
                    }
                }
            }
        }
        for worker in workers { worker.join() }
        if let error = failure.withLock({ $0 }) { throw error }
        return results.withLock { $0 }
    }

    /// One virtual run of the candidate, scored against the real minutes.
    package func score(_ candidate: Candidate, number: Int) throws -> Double? {
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(path: scenarioPath, overrides: overrides(candidate))
        } catch {
            return nil
        }
        let folder = "\(workDirectory)/.candidates/\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = RunOptions(outputDirectory: folder, clock: .virtual)
        options.runId = "calibrate"
        let prepared = try PreparedRun(scenario: scenario, options: options)
        var runner = VirtualClockRunner(
            run: prepared, progress: RunProgress(planned: prepared.summary.visitorCount), stopSignal: stopSignal)
        runner.recordsRowsOnTheEngineThread = true
        _ = try runner.execute()
        let minutes = try RunMinutes(folder: prepared.reportsDirectory)
        return FidelityScore.compute(run: minutes, real: real, rules: []).score
    }
}
