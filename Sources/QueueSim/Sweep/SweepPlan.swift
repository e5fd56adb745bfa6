import Foundation
import QueueClientCore

/// One point of the grid: a value of every varied key, and the scenario with those values set.
package struct SweepPoint: Sendable {
    package var index: Int
    /// Per varied key, in the plan's key order.
    package var values: [SweepValue]
    package var scenario: Scenario
}

/// What `queuesim sweep` will run, checked before anything runs: the grid (the `sweep:` block
/// with the command line on top), every point's scenario loaded through the same overrides as
/// `--set` (so a value that does not suit its key is reported where it is written), the seeds
/// and the goals.
package struct SweepPlan: Sendable {
    package var file: String
    package var axes: [SweepAxis]
    package var seeds: [UInt64]
    package var goals: [Threshold]
    /// The scenario's own thresholds: measured in every run too (sweep.csv), not goals.
    package var thresholds: [Threshold]
    package var objective: SweepObjective?
    package var metrics: [SweepMetric]
    package var points: [SweepPoint]
    package var scenarioName: String
    /// What `sweep` says on stderr before it runs, one line each: the scenario's warnings
    /// (a rate without a unit, as `run` and `validate` give them, for `--vary` and `--set`
    /// values too) and where the goals came from when `--goal` gave none.
    package var notes: [String] = []

    /// Most runs (points × seeds) in one sweep.
    package static let mostRuns = 1_000_000

    package var runCount: Int { points.count * seeds.count }

    /// The problems that keep a sweep from running, each `FILE:LINE:COLUMN: message` or
    /// `--vary …: message`.
    package struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        package var diagnostics: [Diagnostic]

        init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

        init(file: String, at mark: YamlMark?, _ message: String) {
            diagnostics = [Diagnostic(file: file, line: mark?.line, column: mark?.column, message: message)]
        }

        package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    }

    /// - Parameters:
    ///   - bytes: the scenario file's bytes, loaded again for every point with its values set.
    ///   - base: the scenario as loaded with `overrides` (the `sweep:` block is read from it).
    ///   - overrides: `--set` values, applied to every point before the point's own.
    ///   - commandLine: `--vary`, `--seeds`, `--goal`, `--minimize`/`--maximize`.
    ///   - needsQuestion: refuse a plan with no goals and no thresholds to take as goals;
    ///     false for `validate`, which cannot know the `--goal`s a sweep will be given.
    package init(
        file: String, bytes: [UInt8], base: Scenario, overrides: [ScenarioOverride] = [],
        commandLine: SweepSettings = SweepSettings(),
        environment: [String: String] = ProcessInfo.processInfo.environment, needsQuestion: Bool = true
    ) throws(Problem) {
        self.file = file
        scenarioName = base.name
        let settings = (base.sweep ?? SweepSettings()).applying(
            vary: commandLine.axes, seeds: commandLine.seeds, goals: commandLine.goals,
            objective: commandLine.objective)
        guard !settings.axes.isEmpty else {
            throw Problem(
                file: file, at: nil,
                "nothing to vary: add a `sweep:` block with `vary:` to the scenario, or give --vary KEY=VALUES (see docs/sweep.md)"
            )
        }
        if let objective = settings.objective, !settings.axes.contains(where: { $0.key == objective.key }) {
            let varied = settings.axes.map { "`\($0.key)`" }.joined(separator: ", ")
            let message =
                "`\(objective.direction.rawValue)` names `\(objective.key)`, which the sweep does not vary (it varies \(varied))"
            if objective.mark != nil {
                throw Problem(file: file, at: objective.mark, message)
            }
            throw Problem(file: "--\(objective.direction.rawValue) \(objective.key)", at: nil, message)
        }
        try Self.checkGroups(of: commandLine.goals, among: base.groups.map(\.name))
        let pointCount = settings.axes.reduce(1.0) { $0 * Double($1.values.count) }
        let seedCount = settings.seeds ?? 1
        guard pointCount <= Double(SweepSettings.mostPoints), pointCount * Double(seedCount) <= Double(Self.mostRuns)
        else {
            throw Problem(
                file: file, at: nil,
                "the grid has \(ScenarioUnits.grouped(pointCount)) point(s) × \(seedCount) seed(s); a sweep runs at most \(ScenarioUnits.grouped(Double(SweepSettings.mostPoints))) points and \(ScenarioUnits.grouped(Double(Self.mostRuns))) runs"
            )
        }
        if let seedAxis = settings.axes.first(where: { $0.key == "seed" }) {
            // Each run's seed is the plan's (`seeds: N`): a varied `seed` would be overwritten.
            let message =
                "a sweep sets each run's seed itself (the scenario's seed, seed + 1, …): use `seeds: N` (--seeds N) instead of varying `seed`"
            throw Problem(file: seedAxis.mark == nil ? "--vary seed" : file, at: seedAxis.mark, message)
        }
        if base.target.endpoint != .embedded {
            throw Problem(
                file: file, at: base.positions.target,
                "a sweep runs every point on the virtual clock against the embedded waiting room; this scenario's target.endpoint is \(base.target.endpointDescription)"
            )
        }
        axes = settings.axes
        seeds = (0..<UInt64(seedCount)).map { base.seed &+ $0 }
        thresholds = base.thresholds.filter { $0.window == nil }
        goals = settings.goals
        objective = settings.objective
        metrics = SweepMetric.columns(goals: goals, thresholds: thresholds)

        // Each value alone first, so a bad one is reported once, where it is written.
        var problems: [Diagnostic] = []
        for axis in axes {
            var valueWarnings: [String] = []
            for value in axis.values {
                let single = Self.override(axis: axis, value: value)
                do {
                    let loaded = try ScenarioLoader.load(
                        bytes: bytes, path: file, overrides: overrides + [single], environment: environment)
                    valueWarnings += Self.warnings(
                        of: loaded, fromOverride: overrides.count + 1, axis: axis, file: file)
                } catch {
                    problems += Self.placed(error.diagnostics, of: single, axis: axis, value: value, file: file)
                }
            }
            // One line per key: a range of bare numbers would otherwise warn once per value.
            if let first = valueWarnings.first {
                notes.append(
                    first + (valueWarnings.count > 1 ? " (and \(valueWarnings.count - 1) more of its values)" : ""))
            }
        }
        guard problems.isEmpty else { throw Problem(problems) }
        // Checked after the values, so a value's own mistake is said first.
        if goals.isEmpty, needsQuestion {
            // An answer to no question is not an answer: the scenario's own pass line is the
            // question when nothing else asks one.
            guard !thresholds.isEmpty else { throw Problem(file: file, at: nil, Self.noQuestion) }
            goals = thresholds
            metrics = SweepMetric.columns(goals: goals, thresholds: thresholds)
            notes.append(
                "queuesim sweep: no --goal given: every point is judged by the scenario's thresholds ("
                    + thresholds.map(\.source).joined(separator: "; ") + ")")
        }
        notes = Self.warnings(of: base, varied: settings.axes) + notes

        var points: [SweepPoint] = []
        for (index, choice) in Self.grid(axes.map(\.values.count)).enumerated() {
            let values = zip(axes, choice).map { $0.values[$1] }
            let pointOverrides = zip(axes, values).map { Self.override(axis: $0, value: $1) }
            do {
                let scenario = try ScenarioLoader.load(
                    bytes: bytes, path: file, overrides: overrides + pointOverrides, environment: environment)
                points.append(SweepPoint(index: index, values: values, scenario: scenario))
            } catch {
                let named = zip(axes, values).map { "\($0.key)=\($1.text)" }.joined(separator: ", ")
                throw Problem(
                    error.diagnostics.map {
                        var diagnostic = $0
                        diagnostic.message = "at the point \(named): \(diagnostic.message)"
                        return diagnostic
                    })
            }
        }
        self.points = points
    }

    /// A plan of points already made (tests of the answer and the files).
    init(
        file: String, scenario: Scenario, axes: [SweepAxis], seeds: [UInt64], goals: [Threshold],
        objective: SweepObjective?
    ) {
        self.file = file
        scenarioName = scenario.name
        self.axes = axes
        self.seeds = seeds
        self.goals = goals
        // Windowed thresholds judge a run as it goes; a sweep's columns measure whole runs.
        thresholds = scenario.thresholds.filter { $0.window == nil }
        self.objective = objective
        metrics = SweepMetric.columns(goals: goals, thresholds: thresholds)
        points = Self.grid(axes.map(\.values.count)).enumerated().map { index, choice in
            SweepPoint(index: index, values: zip(axes, choice).map { $0.values[$1] }, scenario: scenario)
        }
    }

    /// Why a sweep with neither goals nor thresholds is refused (exit 2, before any run).
    package static let noQuestion =
        "sweep needs a question: give --goal (e.g. --goal 'wait.p95 < 10m'), `goals:` in the `sweep:` block, or thresholds: in the scenario"

    /// The base scenario's warnings as `run` prints them, but not those about a varied key:
    /// the scenario's value of that key is never run (each point sets its own).
    static func warnings(of base: Scenario, varied axes: [SweepAxis]) -> [String] {
        base.warnings.filter { warning in !axes.contains { warning.message.hasPrefix("`\($0.key):") } }
            .map { "\(base.place(of: $0.mark)): warning: \($0.message)" }
    }

    /// The warnings a varied value brings (`waitingRoom.outflow: 5000` has no unit): those
    /// positioned in its own override, named as the sweep block or `--vary` writes the value.
    static func warnings(of loaded: Scenario, fromOverride source: Int, axis: SweepAxis, file: String) -> [String] {
        loaded.warnings.filter { $0.mark?.source == source }.map { warning in
            let place = axis.mark.map { "\(file):\($0.line):\($0.column)" } ?? loaded.place(of: warning.mark)
            return "\(place): warning: \(warning.message)"
        }
    }

    /// A `--goal` for a group the scenario does not have is refused in the words the `sweep:`
    /// block's goals get (the validator checks those), naming the goal instead of a position.
    static func checkGroups(of goals: [Threshold], among groupNames: [String]) throws(Problem) {
        let problems = goals.compactMap { goal -> Diagnostic? in
            guard let name = goal.group, !groupNames.contains(name) else { return nil }
            return Diagnostic(
                file: "--goal '\(goal.source)'", line: nil, column: nil,
                message:
                    "this threshold names the group `\(name)`, but it is not one of the scenario's groups\(ScenarioValidator.groupHint(name, among: groupNames))"
            )
        }
        guard problems.isEmpty else { throw Problem(problems) }
    }

    /// Every combination of `counts` values, the first key's value changing slowest.
    static func grid(_ counts: [Int]) -> [[Int]] {
        var combinations: [[Int]] = [[]]
        for count in counts {
            combinations = combinations.flatMap { prefix in (0..<count).map { prefix + [$0] } }
        }
        return combinations
    }

    static func override(axis: SweepAxis, value: SweepValue) -> ScenarioOverride {
        ScenarioOverride(path: axis.key, value: value.text, origin: axis.mark == nil ? "--vary" : "sweep.vary")
    }

    /// A problem in a value of the `sweep:` block points at the value in the file; one from
    /// `--vary` keeps the override's own name (`--vary KEY=VALUE`).
    static func placed(
        _ diagnostics: [Diagnostic], of override: ScenarioOverride, axis: SweepAxis, value: SweepValue, file: String
    ) -> [Diagnostic] {
        guard let mark = axis.mark else { return diagnostics }
        return diagnostics.map { diagnostic in
            guard diagnostic.file == override.label else { return diagnostic }
            return Diagnostic(
                file: file, line: mark.line, column: mark.column,
                message: "`sweep.vary.\(axis.key)` value `\(value.text)`: \(diagnostic.message)")
        }
    }

    /// The run options of one run of a point: its seed on the virtual clock; a report folder
    /// only with `--keep-points`.
    package func runOptions(seed: UInt64, reportsDirectory: String?, maxMemory: MemoryBudget?) -> RunOptions {
        var options = RunOptions(outputDirectory: reportsDirectory, seed: seed, clock: .virtual, maxMemory: maxMemory)
        options.runId = "sweep"
        return options
    }
}
